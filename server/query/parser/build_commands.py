"""Parse tree to AST: schema (index, constraint), SHOW and user administration commands."""
from __future__ import annotations

import re

from relate.grammar._generated.CypherParser import CypherParser as P
from relate.server.query import ast

from .build_clauses import ClauseBuilder
from .literals import decode_parameter
from .syntax_errors import LEGACY_CONSTRAINT, legacy_constraint_keyword

_MULTIPLICITIES = ("MANY_ONE", "ONE_MANY", "MANY_MANY", "ONE_ONE")
_SHOW_KINDS = {P.ShowIndexesContext: "INDEXES", P.ShowConstraintsContext: "CONSTRAINTS",
               P.ShowProceduresContext: "PROCEDURES", P.ShowFunctionsContext: "FUNCTIONS",
               P.ShowUsersContext: "USERS", P.ShowTransactionsContext: "TRANSACTIONS",
               P.ShowRelevanceJoinsContext: "RELEVANCE JOINS", P.ShowLabelDeclarationsContext: "LABELS",
               P.ShowDatabasesContext: "DATABASES", P.ShowSettingsContext: "SETTINGS",
               P.ShowRolesContext: "ROLES", P.ShowPrivilegesContext: "PRIVILEGES",
               P.ShowRolePrivilegesContext: "ROLE PRIVILEGES", P.ShowUserPrivilegesContext: "USER PRIVILEGES",
               P.ShowAliasesContext: "ALIASES"}


class CommandBuilder(ClauseBuilder):
    """Builds the ast.Command nodes."""

    def command(self, ctx):
        return self._command_handlers[type(ctx)](self, ctx)

    # -- indexes --------------------------------------------------------------------------------
    def _create_index(self, ctx):
        if type(ctx) is P.LegacyIndexContext:
            return ast.CreateIndex("RANGE", None, "node", "n", [self.name(ctx.symbolicName())],
                                   [self.name(key) for key in ctx.propertyKeyName()], pos=self.pos(ctx))
        target = ctx.indexTarget()
        entity = "node" if type(target) is P.NodeIndexTargetContext else "relationship"
        props_ctx = ctx.indexProperties()
        kind = "RANGE" if ctx.kind is None else ctx.kind.text.upper()
        if props_ctx.propertyList() is not None:
            properties = self._property_keys(props_ctx.propertyList())
        else:                                   # LOOKUP index: ON EACH labels(n) / type(r)
            properties = []
        if kind != "LOOKUP" and not target.symbolicName():
            raise self.error(target, "An index needs a label or relationship type, as in FOR (n:Label)",
                             "InvalidIndexTarget")
        with_list = ctx.propertyList()
        options = ctx.mapLiteral()
        name = None if ctx.name is None else self.name(ctx.name)
        if ctx.nameParam is not None:               # CREATE VECTOR INDEX $name: resolved when it runs
            name = ast.Parameter(decode_parameter(ctx.nameParam.text), pos=self.token_pos(ctx.nameParam))
        return ast.CreateIndex(
            kind, name, entity,
            self.name(target.variable()), [self.name(label) for label in target.symbolicName()],
            properties, [] if with_list is None else self._property_keys(with_list),
            None if options is None else self.map_literal(options), ctx.ifNotExists() is not None,
            pos=self.pos(ctx))

    def _property_keys(self, ctx) -> list[str]:
        return [self.name(ref.propertyKeyName()) for ref in ctx.propertyRef()]

    def _drop_index(self, ctx):
        if type(ctx) is P.LegacyDropIndexContext:     # DROP INDEX ON :Label(key): 4.x's form, FalkorDB's
            return ast.DropIndex(None, pos=self.pos(ctx), label=self.name(ctx.symbolicName()),
                                 properties=[self.name(key) for key in ctx.propertyKeyName()])
        if ctx.symbolicName() is None:
            name = ast.Parameter(decode_parameter(ctx.PARAMETER().getText()), pos=self.pos(ctx))
        else:
            name = self.name(ctx.symbolicName())
        return ast.DropIndex(name, ctx.ifExists() is not None, pos=self.pos(ctx))

    # -- constraints ----------------------------------------------------------------------------
    def _create_constraint(self, ctx):
        legacy = legacy_constraint_keyword(ctx)      # 4.x's ON ... ASSERT: a syntax error in Neo4j 5
        if legacy is not None:
            raise self.error(legacy, LEGACY_CONSTRAINT.format(keyword=legacy.text))
        target = ctx.constraintTarget()
        entity = "node" if type(target) is P.NodeConstraintTargetContext else "relationship"
        props = ctx.constraintProperties()
        if props.propertyRef() is not None:
            properties = [self.name(props.propertyRef().propertyKeyName())]
        else:
            properties = self._property_keys(props.propertyList())
        kind_ctx = ctx.constraintKind()
        kind_type = type(kind_ctx)
        type_name = None
        if kind_type is P.UniqueKindContext:
            kind = "UNIQUE"
        elif kind_type is P.KeyKindContext:
            kind = "KEY"
        elif kind_type is P.NotNullKindContext:
            kind = "NOT_NULL"
        else:
            kind = "TYPE"
            type_name = self._type_name(kind_ctx.cypherType())
        options = ctx.mapLiteral()
        name = None if ctx.name is None else self.name(ctx.name)
        if ctx.nameParam is not None:               # CREATE CONSTRAINT $name: resolved when it runs
            name = ast.Parameter(decode_parameter(ctx.nameParam.text), pos=self.token_pos(ctx.nameParam))
        return ast.CreateConstraint(
            kind, name, entity,
            self.name(target.variable()), self.name(target.symbolicName()), properties, type_name,
            None if options is None else self.map_literal(options), ctx.ifNotExists() is not None,
            pos=self.pos(ctx))

    def _type_name(self, ctx) -> str:
        """A type as upper-case text with single spaces and none inside brackets: LIST<INTEGER NOT NULL>."""
        text = " ".join(self.source(ctx).split()).upper()
        text = re.sub(r"\s*([<>(),|])\s*", r"\1", text)
        return text.replace(",", ", ").replace("|", " | ")

    def _drop_constraint(self, ctx):
        if ctx.symbolicName() is None:
            name = ast.Parameter(decode_parameter(ctx.PARAMETER().getText()), pos=self.pos(ctx))
        else:
            name = self.name(ctx.symbolicName())
        return ast.DropConstraint(name, ctx.ifExists() is not None, pos=self.pos(ctx))

    # -- SHOW -----------------------------------------------------------------------------------
    def _show(self, ctx):
        show_kind = ctx.showKind()
        kind = _SHOW_KINDS[type(show_kind)]
        if kind == "USERS" and show_kind.CURRENT() is not None:
            kind = "CURRENT USER"
        elif kind == "USERS" and show_kind.AUTH() is not None:
            kind = "USERS WITH AUTH"
        if kind == "ROLES" and show_kind.WITH() is not None:
            kind = "ROLES WITH USERS"
        show_filter = getattr(show_kind, "filter_", None)
        named = None
        if kind == "FUNCTIONS" and show_kind.functionFilter() is not None:
            named = " ".join(child.getText().upper() for child in show_kind.functionFilter().getChildren())
        executable_by = None
        by = show_kind.executableBy() if hasattr(show_kind, "executableBy") else None
        if by is not None:
            executable_by = "" if by.symbolicName() is None else self.name(by.symbolicName())
        if kind == "CONSTRAINTS" and show_kind.constraintFilter() is not None:
            named = self._constraint_filter(show_kind.constraintFilter())
        if kind == "DATABASES":
            if show_kind.scope is not None:
                kind = f"{show_kind.scope.text.upper()} DATABASE"
            if show_kind.symbolicName() is not None:
                named = self.name(show_kind.symbolicName())
            elif show_kind.STRING() is not None:
                named = self.string(show_kind.STRING().symbol)
        if kind == "SETTINGS" and show_kind.STRING():
            named = "\n".join(self.string(name.symbol) for name in show_kind.STRING())
        if kind in ("ROLE PRIVILEGES", "USER PRIVILEGES", "ALIASES") and show_kind.symbolicName():
            names = show_kind.symbolicName()
            named = "\n".join(self.name(name) for name in (names if isinstance(names, list) else [names]))
        as_commands = None
        if kind.endswith("PRIVILEGES") and show_kind.asCommands() is not None:
            as_commands = "REVOKE" if show_kind.asCommands().REVOKE() is not None else "GRANT"
        yields = None
        if ctx.YIELD() is not None:
            yields = [self.yield_item(item) for item in ctx.yieldItem()]
        returns = ctx.projectionBody()
        order_by, skip, limit = self._paging(ctx)       # YIELD ... ORDER BY ... SKIP ... LIMIT ...
        return ast.ShowCommand(kind, yields, ctx.STAR() is not None, self.where(ctx.whereClause()),
                               None if returns is None else self.projection(returns), pos=self.pos(ctx),
                               filter=named if show_filter is None else show_filter.text.upper(),
                               order_by=order_by, skip=skip, limit=limit, executable_by=executable_by,
                               as_commands=as_commands)

    @staticmethod
    def _constraint_filter(ctx) -> str:
        """SHOW ... CONSTRAINTS' filter as ``ALL`` or ``[NODE |RELATIONSHIP ]UNIQUE|EXISTS|TYPE|KEY``."""
        if ctx.kind is None:
            return "ALL"
        kind = {P.UNIQUE: "UNIQUE", P.UNIQUENESS: "UNIQUE", P.EXISTS: "EXISTS", P.EXIST: "EXISTS",
                P.EXISTENCE: "EXISTS", P.TYPE: "TYPE", P.KEY: "KEY"}[ctx.kind.type]
        if ctx.entity is None:
            return kind
        return ("NODE " if ctx.entity.type == P.NODE else "RELATIONSHIP ") + kind

    # -- users ----------------------------------------------------------------------------------
    def _password(self, ctx) -> ast.Expr:
        token = ctx.start
        if token.type == P.PARAMETER:
            return ast.Parameter(decode_parameter(token.text), pos=self.token_pos(token))
        return ast.Literal(self.string(token), pos=self.token_pos(token))

    @staticmethod
    def _change_required(ctx):
        return None if ctx is None else ctx.NOT() is None

    def _user_options(self, ctx) -> dict:
        """The SET PASSWORD CHANGE [NOT] REQUIRED / SET STATUS / [SET | REMOVE] HOME DATABASE clauses, each
        at most once (Neo4j refuses a repeated one)."""
        out: dict = {}
        passwords = [ctx.passwordChange()] if getattr(ctx, "passwordChange", None) and ctx.passwordChange() else []
        if passwords:
            out["change_required"] = self._change_required(passwords[0])
        for option in ctx.userOption():
            if option.passwordChange() is not None:
                key, value = "change_required", self._change_required(option.passwordChange())
            elif option.status is not None:
                key, value = "suspended", option.status.type == P.SUSPENDED
            elif option.REMOVE() is not None:
                key, value = "home", ""
            else:
                key, value = "home", self.name(option.symbolicName())
            if key in out:
                raise self.error(option, f"Duplicate {option.getChild(0).getText().upper()} "
                                         f"{option.getChild(1).getText().upper()} clause", "InvalidUserClause")
            out[key] = value
        return out

    def _create_user(self, ctx):
        options = self._user_options(ctx)
        replace = ctx.REPLACE() is not None
        if replace and ctx.ifNotExists() is not None:
            raise self.error(ctx, f"Failed to create the specified user '{self.name(ctx.symbolicName())}': "
                                  "cannot have both `OR REPLACE` and `IF NOT EXISTS`.", "InvalidUserClause")
        required = options.get("change_required")
        # Neo4j requires a password change on first login unless told otherwise.
        return ast.CreateUser(self.name(ctx.symbolicName()), self._password(ctx.password()),
                              True if required is None else required, ctx.ifNotExists() is not None,
                              pos=self.pos(ctx), encrypted=ctx.ENCRYPTED() is not None,
                              suspended=options.get("suspended"), home=options.get("home"), replace=replace)

    def _alter_user(self, ctx):
        password = ctx.password() if type(ctx) is P.AlterPasswordContext else None
        options = self._user_options(ctx)
        return ast.AlterUser(self.name(ctx.symbolicName()),
                             None if password is None else self._password(password),
                             options.get("change_required"), ctx.ifExists() is not None, pos=self.pos(ctx),
                             encrypted=password is not None and ctx.ENCRYPTED() is not None,
                             suspended=options.get("suspended"), home=options.get("home"))

    def _rename_user(self, ctx):
        old, new = (self.name(name) for name in ctx.symbolicName())
        return ast.RenameUser(old, new, ctx.ifExists() is not None, pos=self.pos(ctx))

    def _drop_user(self, ctx):
        return ast.DropUser(self.name(ctx.symbolicName()), ctx.ifExists() is not None, pos=self.pos(ctx))

    def _alter_current_password(self, ctx):
        return ast.AlterCurrentPassword(self._password(ctx.old), self._password(ctx.new), pos=self.pos(ctx))

    def _grant_role(self, ctx):
        *roles, user = [self.name(name) for name in ctx.symbolicName()]
        return ast.GrantRole(roles, user, type(ctx) is P.RevokeRoleContext, pos=self.pos(ctx))

    # -- relevance joins and label declarations -------------------------------------------------
    def _create_relevance_join(self, ctx):
        options = ctx.mapLiteral()
        on = ctx.propertyRef()
        anchor, named = self.name(ctx.anchor), self.name(on.variable())
        if named != anchor:
            # ON names the anchor's property (its value is searched for); anything else would be ignored
            raise self.error(on.variable(), f"ON must name a property of the anchor `{anchor}`, not of `{named}`"
                             + (" (the target)" if named == self.name(ctx.targetVar) else ""),
                             "InvalidRelevanceJoin")
        return ast.CreateRelevanceJoin(
            self.name(ctx.name), [self.name(label) for label in ctx.symbolicName()[1:-2]],
            self.name(ctx.relType), self.name(ctx.target),
            self.name(ctx.propertyRef().propertyKeyName()),
            None if options is None else self.map_literal(options), ctx.ifNotExists() is not None,
            pos=self.pos(ctx))

    def _drop_relevance_join(self, ctx):
        return ast.DropRelevanceJoin(self.name(ctx.symbolicName()), ctx.ifExists() is not None,
                                     pos=self.pos(ctx))

    def _create_label(self, ctx):
        options = ctx.mapLiteral()
        return ast.CreateLabel(self.name(ctx.symbolicName()), None if options is None else self.map_literal(options),
                               ctx.ifNotExists() is not None, pos=self.pos(ctx))

    def _terminate_transactions(self, ctx):
        return ast.TerminateTransactions([self.expression(e) for e in ctx.expression()], pos=self.pos(ctx))

    def _drop_label(self, ctx):
        return ast.DropLabel(self.name(ctx.symbolicName()), ctx.ifExists() is not None, pos=self.pos(ctx))

    # -- Kuzu's tables and COPY -------------------------------------------------------------------
    def _table_column(self, ctx) -> ast.TableColumn:
        default = ctx.expression()
        return ast.TableColumn(self.name(ctx.symbolicName()), " ".join(self.source(ctx.tableType()).split()).upper(),
                               ctx.PRIMARY() is not None, None if default is None else self.expression(default))

    def _create_node_table(self, ctx):
        return self._create_table(ctx, "node")

    def _create_rel_table(self, ctx):
        return self._create_table(ctx, "relationship")

    def _create_table(self, ctx, entity: str):
        columns, ends = [], []
        key = multiplicity = None
        for element in ctx.tableElement():
            if isinstance(element, P.TablePrimaryKeyContext) and entity == "node" and key is None:
                key = self.name(element.symbolicName())
            elif isinstance(element, P.TableEndsContext) and entity == "relationship" and not columns:
                ends.append((self.name(element.symbolicName(0)), self.name(element.symbolicName(1))))
            elif isinstance(element, P.TableColumnDefContext) and multiplicity is None:
                columns.append(self._table_column(element.tableColumn()))
            elif isinstance(element, P.TableMultiplicityContext) and entity == "relationship" and \
                    multiplicity is None and self.name(element.symbolicName()).upper() in _MULTIPLICITIES:
                multiplicity = self.name(element.symbolicName()).upper()
            else:
                raise self.error(element, f"Invalid input '{self.source(element)}' in CREATE "
                                          f"{'NODE' if entity == 'node' else 'REL'} TABLE")
        if entity == "relationship" and not ends:
            raise self.error(ctx, "A relationship table names the node tables it joins: (FROM A TO B, ...)")
        return ast.CreateTable(entity, self.name(ctx.symbolicName()), columns, key, ends, multiplicity,
                               ctx.ifNotExists() is not None, pos=self.pos(ctx))

    def _extension(self, ctx):
        return ast.Extension("INSTALL" if ctx.INSTALL() is not None else "LOAD", self.name(ctx.symbolicName()),
                             pos=self.pos(ctx))

    def _drop_table(self, ctx):
        return ast.DropTable(self.name(ctx.symbolicName()), ctx.ifExists() is not None, pos=self.pos(ctx))

    def _copy_from(self, ctx):
        if ctx.STRING() is not None:
            source: ast.Expr = ast.Literal(self.string(ctx.STRING().symbol), pos=self.pos(ctx))
        else:
            source = ast.Parameter(decode_parameter(ctx.PARAMETER().getText()), pos=self.pos(ctx))
        options: dict[str, ast.Expr] = {}
        for option in ctx.copyOption():
            value = option.expression()
            options[self.name(option.symbolicName()).lower()] = (ast.Literal(True) if value is None
                                                                  else self.expression(value))
        return ast.CopyFrom(self.name(ctx.symbolicName()), source, options, pos=self.pos(ctx))


CommandBuilder._command_handlers = {
    P.NewIndexContext: CommandBuilder._create_index,
    P.LegacyIndexContext: CommandBuilder._create_index,
    P.NamedDropIndexContext: CommandBuilder._drop_index,
    P.LegacyDropIndexContext: CommandBuilder._drop_index,
    P.CreateConstraintContext: CommandBuilder._create_constraint,
    P.DropConstraintContext: CommandBuilder._drop_constraint,
    P.ShowCommandContext: CommandBuilder._show,
    P.CreateUserContext: CommandBuilder._create_user,
    P.AlterPasswordContext: CommandBuilder._alter_user,
    P.AlterChangeRequiredContext: CommandBuilder._alter_user,
    P.DropUserContext: CommandBuilder._drop_user,
    P.RenameUserContext: CommandBuilder._rename_user,
    P.AlterCurrentPasswordContext: CommandBuilder._alter_current_password,
    P.GrantRoleContext: CommandBuilder._grant_role,
    P.RevokeRoleContext: CommandBuilder._grant_role,
    P.CreateRelevanceJoinContext: CommandBuilder._create_relevance_join,
    P.DropRelevanceJoinContext: CommandBuilder._drop_relevance_join,
    P.CreateLabelContext: CommandBuilder._create_label,
    P.DropLabelContext: CommandBuilder._drop_label,
    P.TerminateTransactionsContext: CommandBuilder._terminate_transactions,
    P.CreateNodeTableContext: CommandBuilder._create_node_table,
    P.CreateRelTableContext: CommandBuilder._create_rel_table,
    P.DropTableContext: CommandBuilder._drop_table,
    P.CopyFromContext: CommandBuilder._copy_from,
    P.ExtensionContext: CommandBuilder._extension,
}
