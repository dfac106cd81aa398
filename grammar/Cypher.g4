// Relate's Cypher grammar: openCypher 9 plus SEARCH, CALL subqueries, COUNT/EXISTS/COLLECT
// subqueries, label expressions and schema/user commands. Written for SLL prediction: alternatives
// are told apart by their first tokens wherever the language allows.
grammar Cypher;

options { caseInsensitive = true; }

// ------------------------------------------------------------------------------------------------
// Statements
// ------------------------------------------------------------------------------------------------
statementEOF : statement SEMI? EOF ;

statement : cypherPrefix? (EXPLAIN | PROFILE)? (command | query) ;

// CYPHER 5 / CYPHER 25 and planner options (runtime=slotted, ...) as Neo4j clients send them; checked
// when the AST is built (known versions and option names; the options are hints Relate does not need).
cypherPrefix : CYPHER version=(INTEGER | FLOAT)? cypherOption* ;
cypherOption : symbolicName EQ (symbolicName | INTEGER) ;

// Cypher 25: A NEXT B feeds the rows A returns into B (as a CALL { A } at the head of B would).
query : unionQuery (NEXT unionQuery)* ;

unionQuery : singleQuery (unionOp singleQuery)* | conditionalQuery ;

// Cypher 25: the branch of the first condition that is true runs (ELSE when none is); every branch
// returns the same columns.
conditionalQuery : (WHEN expression THEN unionQuery)+ (ELSE unionQuery)? ;

unionOp : UNION (ALL | DISTINCT)? ;

singleQuery : useClause? clause+ ;

// USE neo4j: the graph a query (or a UNION part, or a CALL subquery) reads; this server has one.
useClause : USE symbolicName (DOT symbolicName)* ;

clause
    : matchClause
    | unwindClause
    | withClause
    | returnClause
    | createClause
    | mergeClause
    | setClause
    | removeClause
    | deleteClause
    | foreachClause
    | callSubqueryClause
    | callProcedureClause
    | loadCsvClause
    | letClause
    | filterClause
    | finishClause
    | pageClause
    ;

// Cypher 25: LET x = e (WITH *, e AS x), FILTER [WHERE] p (WITH * WHERE p), FINISH (no result rows).
letClause : LET letItem (COMMA letItem)* ;
letItem : variable EQ expression ;
filterClause : FILTER WHERE? expression ;
finishClause : FINISH ;
// Cypher 25: ORDER BY, SKIP/OFFSET and LIMIT as clauses of their own (WITH * ORDER BY ... SKIP ... LIMIT ...).
pageClause : orderBy skipClause? limitClause? | skipClause limitClause? | limitClause ;

// ------------------------------------------------------------------------------------------------
// Reading clauses
// ------------------------------------------------------------------------------------------------
matchClause : OPTIONAL? MATCH matchMode? pattern hint* searchClause? whereClause? ;

// Planner hints (Neo4j's USING INDEX / SCAN / JOIN ON): checked against the pattern, then left to the
// planner, which picks indexes itself.
hint
    : USING (TEXT | RANGE | POINT)? INDEX SEEK? variable COLON symbolicName
      LPAREN propertyKeyName (COMMA propertyKeyName)* RPAREN      # IndexHint
    | USING JOIN ON variable (COMMA variable)*                    # JoinHint
    | USING SCAN variable COLON symbolicName                      # ScanHint
    ;

// Cypher 25 match modes: DIFFERENT RELATIONSHIPS (the default: no relationship twice in a match) or
// REPEATABLE ELEMENTS (walks; quantifiers then need an upper bound unless a selector picks paths).
matchMode : REPEATABLE ELEMENTS | DIFFERENT RELATIONSHIPS ;

whereClause : WHERE expression ;

searchClause : SEARCH variable IN LPAREN searchSpec RPAREN (SCORE AS variable)? ;

searchSpec : indexSearch | combineSearch ;

indexSearch
    : kind=(VECTOR | FULLTEXT | IDENTIFIER) INDEX symbolicName FOR expression   // IDENTIFIER: a provider's kind
      (WHERE where=expression)? ((SKIP_ | OFFSET) skip=expression)? (LIMIT limit=expression)?
      (WEIGHT weight=expression)?
    ;

combineSearch
    : COMBINE LPAREN searchSource (COMMA searchSource)* RPAREN
      USING method=(WRRF | RRF) (WITH CONSTANT constant=expression)? (LIMIT limit=expression)?
      (WEIGHT weight=expression)?
    ;

searchSource : indexSearch | combineSearch | LPAREN searchSpec RPAREN ;

unwindClause : UNWIND expression AS variable ;

// LOAD CSV; Parquet and Arrow IPC files load through the same clause (chosen by file extension).
loadCsvClause : LOAD CSV (WITH HEADERS)? FROM expression AS variable (FIELDTERMINATOR STRING)? ;

withClause : WITH projectionBody whereClause? ;

returnClause : RETURN projectionBody ;

projectionBody : DISTINCT? projectionItems orderBy? skipClause? limitClause? ;

projectionItems
    : STAR (COMMA projectionItem)*
    | projectionItem (COMMA projectionItem)*
    ;

projectionItem : expression (AS variable)? ;

orderBy : ORDER BY sortItem (COMMA sortItem)* ;

sortItem : expression dir=(ASC | ASCENDING | DESC | DESCENDING)? (NULLS nulls=(FIRST | LAST))? ;

skipClause : (SKIP_ | OFFSET) expression ;

limitClause : LIMIT expression ;

// ------------------------------------------------------------------------------------------------
// Updating clauses
// ------------------------------------------------------------------------------------------------
// INSERT: GQL's word for CREATE (Neo4j 5.18+).
createClause : (CREATE | INSERT) pattern ;

mergeClause : MERGE patternPart mergeAction* ;

mergeAction : ON (MATCH | CREATE) SET setItem (COMMA setItem)* ;

setClause : SET setItem (COMMA setItem)* ;

// Alternative order matters: `n = map` must not be read as a property assignment.
setItem
    : variable op=(EQ | PLUS_EQ) expression     # SetVariableItem
    | variable labelNames                       # SetLabelsItem
    | variable dynamicLabelNames                # SetDynamicLabelsItem
    | postfixExpression EQ expression           # SetPropertyItem
    ;

removeClause : REMOVE removeItem (COMMA removeItem)* ;

removeItem
    : variable labelNames           # RemoveLabelsItem
    | variable dynamicLabelNames    # RemoveDynamicLabelsItem
    | postfixExpression             # RemovePropertyItem
    ;

labelNames : (COLON symbolicName)+ ;

// SET n:$(expr): labels computed per row (a string or a list of strings), as in Neo4j 5.26.
dynamicLabelNames : (COLON (symbolicName | DYNAMIC_LABEL expression RPAREN))+ ;

deleteClause : (DETACH | NODETACH)? DELETE expression (COMMA expression)* ;

foreachClause : FOREACH LPAREN variable IN expression PIPE clause+ RPAREN ;

// ------------------------------------------------------------------------------------------------
// CALL
// ------------------------------------------------------------------------------------------------
callSubqueryClause
    : OPTIONAL? CALL (LPAREN (STAR | variable (COMMA variable)*)? RPAREN)? LBRACE query RBRACE
      inTransactions?
    ;

// IN [n] CONCURRENT TRANSACTIONS is accepted and runs its batches one after another (same results).
inTransactions : IN (expression? CONCURRENT)? TRANSACTIONS inTransactionsOption* ;

// Each at most once, in any order (as Neo4j 5 / Cypher 25); checked when the AST is built.
inTransactionsOption
    : OF expression (ROW | ROWS)                                                          # TxBatchSize
    | ON ERROR (CONTINUE | BREAK | FAIL
                | RETRY (FOR expression (SECOND | SECONDS))? (THEN (CONTINUE | BREAK | FAIL))?) # TxOnError
    | REPORT STATUS AS variable                                                           # TxReportStatus
    ;

callProcedureClause
    : OPTIONAL? CALL procedureName (LPAREN (procedureArgument (COMMA procedureArgument)*)? RPAREN)?
      (YIELD (STAR | yieldItem (COMMA yieldItem)*) whereClause?)?
    ;

// Kuzu's named arguments (metric := 'cosine') reach the procedure as one trailing map.
procedureArgument : (symbolicName COLON EQ)? expression ;

procedureName : symbolicName (DOT symbolicName)* ;

yieldItem : symbolicName (AS variable)? ;

// ------------------------------------------------------------------------------------------------
// Patterns
// ------------------------------------------------------------------------------------------------
pattern : patternPart (COMMA patternPart)* ;

patternPart : (variable EQ)? anonymousPatternPart ;

anonymousPatternPart
    : shortest=(SHORTESTPATH | ALLSHORTESTPATHS) LPAREN patternElement RPAREN
    | pathSelector patternElement
    | patternElement
    ;

// GQL path selectors (Neo4j 5.21+): ALL SHORTEST, ANY SHORTEST, SHORTEST k, ANY [k].
pathSelector
    : ALL SHORTEST                                                        # AllShortestSelector
    | ANY SHORTEST                                                        # AnyShortestSelector
    | SHORTEST k=INTEGER (GROUPS)?                                        # ShortestKSelector
    | ANY k=INTEGER?                                                      # AnySelector
    ;

// Node, relationship and parenthesized-path patterns in a row; the AST builder checks the order (a
// relationship between two nodes, a quantified path beside nodes) and says where it is broken.
patternElement : pathAtom+ ;

pathAtom : nodePattern | relationshipPattern | parenthesizedPath ;

// ((a)-[:T]->(b) WHERE ...){1,3}: a quantified path pattern (Neo4j 5.9+); without a quantifier, a group,
// which as a whole path pattern may name the path and filter it before a selector picks paths:
// SHORTEST 1 (p = (a)-->+(b) WHERE length(p) % 2 = 0).
parenthesizedPath : LPAREN (variable EQ)? patternElement (WHERE expression)? RPAREN quantifier? ;

relationshipsPattern : nodePattern (relationshipPattern nodePattern)+ ;

nodePattern : LPAREN variable? nodeLabels? properties? (WHERE expression)? RPAREN ;

nodeLabels : COLON labelExpression ;

labelExpression : labelAnd (PIPE COLON? labelAnd)* ;

labelAnd : labelNot ((AMP | COLON) labelNot)* ;

labelNot : BANG labelNot | labelAtom ;

labelAtom : symbolicName | PERCENT | LPAREN labelExpression RPAREN | dynamicName ;

// n:$(expr), n:$all(expr), n:$any(expr) (Neo4j 5.26): labels or types computed per row.
dynamicName : DYNAMIC_LABEL expression RPAREN | PARAMETER LPAREN expression RPAREN ;

properties : mapLiteral | PARAMETER ;

relationshipPattern : left=LT? dash relationshipDetail? dash right=GT? quantifier? ;

// A quantified relationship (Neo4j 5.9+): -[:T]->{1,3}, -[:T]->+, -[:T]->* (as -[:T*1..3]->, *1.., *0..).
quantifier
    : LBRACE lo=INTEGER RBRACE
    | LBRACE lo=INTEGER? COMMA hi=INTEGER? RBRACE
    | plus=PLUS
    | star=STAR
    ;

dash : MINUS | DASH ;

relationshipDetail
    : LBRACK variable? relationshipTypes? rangeLiteral? properties? (WHERE expression)? RBRACK
    ;

// Type alternatives (:A|B, the common form), or any label expression over the type (:!A, :%, :(A|B)&!C).
relationshipTypes : COLON relTypeName (PIPE COLON? relTypeName)* | COLON labelExpression ;

relTypeName : symbolicName | dynamicName ;

rangeLiteral : STAR (lo=INTEGER)? (dots=DOTDOT (hi=INTEGER)?)? ;

// ------------------------------------------------------------------------------------------------
// Expressions, loosest binding last. Comparison chains are folded by the AST builder.
// ------------------------------------------------------------------------------------------------
expression
    : postfixExpression                                                   # AtomExpr
    | op=(PLUS | MINUS) expression                                        # UnaryExpr
    | expression CARET expression                                         # PowerExpr
    | expression op=(STAR | SLASH | PERCENT) expression                   # MulExpr
    | expression op=(PLUS | MINUS | CONCAT) expression                    # AddExpr
    | expression IS NOT? NULL                                             # IsNullExpr
    | expression IS NOT? form=IDENTIFIER? NORMALIZED                       # IsNormalizedExpr
    | expression (IS NOT? (COLONCOLON | TYPED) | COLONCOLON) valueType       # TypePredicateExpr
    | expression stringOp expression                                      # StringOpExpr
    | expression op=(EQ | NEQ | LT | GT | LE | GE) expression             # CompareExpr
    | NOT expression                                                      # NotExpr
    | expression AND expression                                           # AndExpr
    | expression XOR expression                                           # XorExpr
    | expression OR expression                                            # OrExpr
    ;

stringOp : STARTS WITH | ENDS WITH | CONTAINS | REGEX_MATCH | IN ;

// The type of a type predicate (x IS :: INTEGER NOT NULL, x IS TYPED LIST<STRING> | NULL): words that are
// not clause keywords, so the predicate ends where the expression does (AND, AS, WITH, WHERE, ...); the
// ZONED spellings stand for the '... WITH TIME ZONE' ones here.
valueType : valueTypeAtom (PIPE valueTypeAtom)* ;
// The generic forms first: `v IS :: VECTOR<INT8>(3)` could also read as comparisons, and SLL takes the first.
// `!` is NOT NULL; a trailing LIST / ARRAY (GQL's postfix form) may follow: INTEGER NOT NULL LIST.
valueTypeAtom : (typeWord LT valueType GT (LPAREN INTEGER RPAREN)? | typeWord LPAREN INTEGER RPAREN | typeWord+)
                (NOT NULL | BANG)? (typeWord (NOT NULL | BANG)?)* ;
typeWord : IDENTIFIER | NULL | POINT | NODE | RELATIONSHIP | REL | ANY | VECTOR | PROPERTY ;

postfixExpression : atom postfix* nodeLabels? ;

postfix
    : DOT propertyKeyName                                                 # PropertyLookup
    | LBRACK (lower=expression (dots=DOTDOT upper=expression?)? | dots=DOTDOT upper=expression?) RBRACK
                                                                          # IndexOrSlice
    ;

atom
    : literal                                                             # LiteralAtom
    | PARAMETER                                                           # ParameterAtom
    | CASE (subject=expression)? caseAlternative+ (ELSE elseExpr=expression)? END   # CaseAtom
    | COUNT LPAREN STAR RPAREN                                            # CountStarAtom
    | kind=(EXISTS | COUNT | COLLECT) LBRACE subqueryBody RBRACE          # SubqueryAtom
    // WHERE-and-projection comes first: in `[x IN l WHERE x:A | x]` the `| x` is the projection,
    // not a label alternative.
    | LBRACK variable IN expression (WHERE where=expression PIPE proj=expression | WHERE where=expression
                                     | PIPE proj=expression)? RBRACK      # ListComprehensionAtom
    | LBRACK (variable EQ)? relationshipsPattern (WHERE where=expression)? PIPE proj=expression RBRACK   # PatternComprehensionAtom
    | LBRACK (expression (COMMA expression)*)? RBRACK                     # ListAtom
    | kind=(ALL | ANY | NONE | SINGLE) LPAREN variable IN expression (WHERE expression)? RPAREN   # QuantifierAtom
    | REDUCE LPAREN acc=variable EQ init=expression COMMA var=variable IN source=expression PIPE body=expression RPAREN   # ReduceAtom
    | relationshipsPattern                                                # PatternAtom
    | LPAREN expression RPAREN                                            # ParenAtom
    | TRIM LPAREN side=(BOTH | LEADING | TRAILING)? chars=expression? FROM source=expression RPAREN   # TrimAtom
    | functionName LPAREN (DISTINCT | ALL)? (expression (COMMA expression)*)? RPAREN   # FunctionAtom
    | variable LBRACE (mapProjectionItem (COMMA mapProjectionItem)*)? RBRACE   # MapProjectionAtom
    | variable                                                            # VariableAtom
    ;

caseAlternative : WHEN caseWhen (COMMA caseWhen)* THEN expression ;

// A WHEN of a simple CASE may list values and compare the subject in other ways (Neo4j 5.20+):
// CASE n.age WHEN IS NULL, IS NOT TYPED INTEGER THEN ... WHEN < 13 THEN ... WHEN 13, 14 THEN ... END.
caseWhen
    : op=(EQ | NEQ | LT | GT | LE | GE) expression                        # CaseCompareWhen
    | IS NOT? NULL                                                        # CaseNullWhen
    | IS NOT? form=IDENTIFIER? NORMALIZED                                 # CaseNormalizedWhen
    | (IS NOT? (COLONCOLON | TYPED) | COLONCOLON) valueType              # CaseTypeWhen
    | stringOp expression                                                 # CaseStringWhen
    | expression                                                          # CaseValueWhen
    ;

subqueryBody : query | pattern whereClause? ;

mapProjectionItem
    : DOT STAR                              # AllPropertiesItem
    | DOT propertyKeyName                   # PropertyItem
    | propertyKeyName COLON expression      # LiteralEntryItem
    | variable                              # VariableItem
    ;

// `NOT (x)` and `NOT [x]` are negations, never a call of or a variable named NOT.
functionName : nonNotName (DOT symbolicName)* ;

literal
    : INTEGER                               # IntegerLiteral
    | FLOAT                                 # FloatLiteral
    | STRING                                # StringLiteral
    | TRUE                                  # TrueLiteral
    | FALSE                                 # FalseLiteral
    | NULL                                  # NullLiteral
    | (INF | INFINITY | NAN)                # SpecialFloatLiteral
    | mapLiteral                            # MapLiteralAtom
    ;

mapLiteral : LBRACE (propertyKeyName COLON expression (COMMA propertyKeyName COLON expression)*)? RBRACE ;

// ------------------------------------------------------------------------------------------------
// Schema and administration commands
// ------------------------------------------------------------------------------------------------
command
    : createIndex
    | dropIndex
    | createConstraint
    | dropConstraint
    | showCommand
    | createUser
    | alterUser
    | dropUser
    | renameUser
    | grantRole
    | revokeRole
    | createRelevanceJoin
    | dropRelevanceJoin
    | createLabel
    | dropLabel
    | terminateTransactions
    | createNodeTable
    | createRelTable
    | dropTable
    | copyFrom
    | extension
    ;

// Kuzu's INSTALL vector / LOAD [EXTENSION] fts: what Relate builds in is there already.
extension : (INSTALL | LOAD EXTENSION?) symbolicName ;

// Kuzu's schema and bulk load (docs/kuzu.md): a node table is a label with a primary key and typed
// columns, a relationship table a type with the labels it joins; COPY loads a file into either.
createNodeTable : CREATE NODE TABLE ifNotExists? symbolicName LPAREN tableElement (COMMA tableElement)* RPAREN ;

createRelTable
    : CREATE (REL | RELATIONSHIP) TABLE ifNotExists? symbolicName LPAREN tableElement (COMMA tableElement)* RPAREN
    ;

// (Alternatives in this order: PRIMARY KEY (x) is the key, not a column named PRIMARY.)
tableElement
    : PRIMARY KEY LPAREN symbolicName RPAREN   # TablePrimaryKey
    | FROM symbolicName TO symbolicName        # TableEnds
    | tableColumn                              # TableColumnDef
    | symbolicName                             # TableMultiplicity
    ;

tableColumn : symbolicName tableType (PRIMARY KEY)? (DEFAULT expression)? ;

tableType : symbolicName (LPAREN tableTypeArg (COMMA tableTypeArg)* RPAREN)? (LBRACK INTEGER? RBRACK)* ;

tableTypeArg : INTEGER | symbolicName tableType | tableType ;

dropTable : DROP TABLE ifExists? symbolicName ;

copyFrom : COPY symbolicName FROM (STRING | PARAMETER) (LPAREN copyOption (COMMA copyOption)* RPAREN)? ;

copyOption : symbolicName (EQ? expression)? ;

// Neo4j 5: TERMINATE TRANSACTIONS 'neo4j-transaction-3', ... (ids as SHOW TRANSACTIONS gives them, or a
// parameter holding one or a list).
terminateTransactions : TERMINATE (TRANSACTION | TRANSACTIONS) expression (COMMA expression)* ;

createIndex
    : CREATE kind=(RANGE | TEXT | POINT | VECTOR | FULLTEXT | LOOKUP | IDENTIFIER)? INDEX (name=symbolicName | nameParam=PARAMETER)? ifNotExists?
      FOR indexTarget ON indexProperties (WITH LBRACK propertyList RBRACK)? (OPTIONS mapLiteral)?   # NewIndex
    | CREATE INDEX ON COLON symbolicName LPAREN propertyKeyName (COMMA propertyKeyName)* RPAREN  # LegacyIndex
    ;

indexTarget
    : LPAREN variable (COLON symbolicName (PIPE COLON? symbolicName)*)? RPAREN                     # NodeIndexTarget
    | LPAREN RPAREN LT? MINUS LBRACK variable (COLON symbolicName (PIPE COLON? symbolicName)*)? RBRACK MINUS GT? LPAREN RPAREN   # RelIndexTarget
    ;

indexProperties
    : LPAREN propertyList RPAREN
    | propertyList
    | EACH LBRACK propertyList RBRACK
    | EACH functionName LPAREN variable RPAREN
    ;

propertyList : propertyRef (COMMA propertyRef)* ;

propertyRef : variable DOT propertyKeyName ;

ifNotExists : IF NOT EXISTS ;

ifExists : IF EXISTS ;

dropIndex
    : DROP INDEX (symbolicName | PARAMETER) ifExists?                                               # NamedDropIndex
    | DROP INDEX ON COLON symbolicName LPAREN propertyKeyName (COMMA propertyKeyName)* RPAREN          # LegacyDropIndex
    ;

createConstraint
    : CREATE CONSTRAINT (name=symbolicName | nameParam=PARAMETER)? ifNotExists? (FOR | ON) constraintTarget (REQUIRE | ASSERT)
      constraintProperties IS constraintKind (OPTIONS mapLiteral)?
    ;

constraintTarget
    : LPAREN variable COLON symbolicName RPAREN                                                     # NodeConstraintTarget
    | LPAREN RPAREN LT? MINUS LBRACK variable COLON symbolicName RBRACK MINUS GT? LPAREN RPAREN      # RelConstraintTarget
    ;

constraintProperties : propertyRef | LPAREN propertyList RPAREN ;

constraintKind
    : (NODE | RELATIONSHIP | REL)? UNIQUE          # UniqueKind
    | (NODE | RELATIONSHIP | REL)? KEY             # KeyKind
    | NOT NULL                                     # NotNullKind
    | (COLONCOLON | TYPED) cypherType              # TypeKind
    ;

cypherType : cypherTypeAtom (PIPE cypherTypeAtom)* ;

cypherTypeAtom
    : symbolicName+ (LT cypherType GT)? (LPAREN INTEGER (COMMA symbolicName)* RPAREN)? (NOT NULL)?
    ;

dropConstraint : DROP CONSTRAINT (symbolicName | PARAMETER) ifExists? ;

showCommand
    : SHOW showKind (YIELD (STAR | yieldItem (COMMA yieldItem)*) orderBy? skipClause? limitClause?)? whereClause?
      (RETURN projectionBody)?
    ;

showKind
    : filter=(ALL | RANGE | TEXT | POINT | VECTOR | FULLTEXT | LOOKUP)? (INDEX | INDEXES)  # ShowIndexes
    | constraintFilter? (CONSTRAINT | CONSTRAINTS)                                         # ShowConstraints
    | (PROCEDURE | PROCEDURES) executableBy?                                               # ShowProcedures
    | functionFilter? (FUNCTION | FUNCTIONS) executableBy?                                 # ShowFunctions
    | CURRENT? (USER | USERS) (WITH AUTH)?                                                 # ShowUsers
    | (ROLE | ROLES) (WITH (USER | USERS))?                                                # ShowRoles
    | ALL? (PRIVILEGE | PRIVILEGES) asCommands?                                            # ShowPrivileges
    | (ROLE | ROLES) symbolicName (COMMA symbolicName)* (PRIVILEGE | PRIVILEGES) asCommands?  # ShowRolePrivileges
    | (USER | USERS) (symbolicName (COMMA symbolicName)*)? (PRIVILEGE | PRIVILEGES) asCommands?  # ShowUserPrivileges
    | (ALIAS | ALIASES) symbolicName? FOR (DATABASE | DATABASES)                           # ShowAliases
    | (TRANSACTION | TRANSACTIONS)                                                         # ShowTransactions
    | scope=(DEFAULT | HOME)? (DATABASE | DATABASES) (symbolicName | STRING)?             # ShowDatabases
    | RELEVANCE (JOIN | JOINS)                                                             # ShowRelevanceJoins
    | LABEL (DECLARATION | DECLARATIONS)                                                   # ShowLabelDeclarations
    | (SETTING | SETTINGS) (STRING (COMMA STRING)*)?                                       # ShowSettings
    ;

// Neo4j 5: SHOW [ALL | BUILT IN | USER DEFINED] FUNCTIONS, SHOW ... EXECUTABLE [BY {CURRENT USER | name}]
functionFilter : ALL | BUILT IN | USER DEFINED ;

executableBy : EXECUTABLE (BY (CURRENT USER | symbolicName))? ;

// Neo4j 5: SHOW ... PRIVILEGES AS [REVOKE] COMMANDS
asCommands : AS REVOKE? (COMMAND | COMMANDS) ;

// Neo4j 5: SHOW [NODE | REL[ATIONSHIP]] UNIQUE[NESS] | [PROPERTY] EXIST[ENCE] | PROPERTY TYPE | KEY CONSTRAINTS
constraintFilter
    : ALL
    | entity=(NODE | RELATIONSHIP | REL)? kind=(UNIQUE | UNIQUENESS)
    | entity=(NODE | RELATIONSHIP | REL)? PROPERTY? kind=(EXISTS | EXIST | EXISTENCE)
    | entity=(NODE | RELATIONSHIP | REL)? PROPERTY kind=TYPE
    | entity=(NODE | RELATIONSHIP | REL)? kind=KEY
    ;

// Neo4j 5: CREATE [OR REPLACE] USER name [IF NOT EXISTS] SET [PLAINTEXT | ENCRYPTED] PASSWORD password
//   [[SET PASSWORD] CHANGE [NOT] REQUIRED] [SET STATUS {ACTIVE | SUSPENDED}] [SET HOME DATABASE name]
createUser
    : CREATE (OR REPLACE)? USER symbolicName ifNotExists? SET encryption=(PLAINTEXT | ENCRYPTED)? PASSWORD password
      passwordChange? userOption*
    ;

alterUser
    : ALTER USER symbolicName ifExists? SET encryption=(PLAINTEXT | ENCRYPTED)? PASSWORD password passwordChange?
      userOption*                                                                                    # AlterPassword
    | ALTER USER symbolicName ifExists? userOption+                                                  # AlterChangeRequired
    | ALTER CURRENT USER SET PASSWORD FROM old=password TO new=password                             # AlterCurrentPassword
    ;

userOption
    : SET PASSWORD passwordChange
    | SET STATUS status=(ACTIVE | SUSPENDED)
    | SET HOME DATABASE symbolicName
    | REMOVE HOME DATABASE
    ;

password : STRING | PARAMETER ;

passwordChange : CHANGE NOT? REQUIRED ;

dropUser : DROP USER symbolicName ifExists? ;

renameUser : RENAME USER symbolicName ifExists? TO symbolicName ;

grantRole : GRANT (ROLE | ROLES) symbolicName (COMMA symbolicName)* TO symbolicName ;

revokeRole : REVOKE (ROLE | ROLES) symbolicName (COMMA symbolicName)* FROM symbolicName ;

// Relevance joins (docs/relevance.md): a relationship type answered by a search at query time.
createRelevanceJoin
    : CREATE RELEVANCE JOIN name=symbolicName ifNotExists?
      FOR LPAREN anchor=variable COLON symbolicName (PIPE COLON? symbolicName)* RPAREN
      MINUS LBRACK COLON relType=symbolicName RBRACK MINUS GT
      LPAREN targetVar=variable COLON target=symbolicName RPAREN
      ON propertyRef (OPTIONS mapLiteral)?
    ;

dropRelevanceJoin : DROP RELEVANCE JOIN symbolicName ifExists? ;

// Label declarations: parents (a child label implies its parents) and a lifecycle (curation).
createLabel : CREATE LABEL symbolicName ifNotExists? (OPTIONS mapLiteral)? ;

dropLabel : DROP LABEL symbolicName ifExists? ;

// ------------------------------------------------------------------------------------------------
// Names. Every keyword doubles as a name where Cypher allows one.
// ------------------------------------------------------------------------------------------------
variable : nonNotName ;

propertyKeyName : symbolicName ;

symbolicName : IDENTIFIER | ESCAPED_IDENTIFIER | keyword ;

nonNotName : IDENTIFIER | ESCAPED_IDENTIFIER | nonNotKeyword ;

keyword : nonNotKeyword | NOT ;

nonNotKeyword
    : ACTIVE | ALIAS | ALIASES | ALL | ALLSHORTESTPATHS | ALTER | AND | ANY | AS | ASC | ASCENDING | ASSERT | AUTH | BOTH
    | BREAK | BY | CALL | CASE
    | CHANGE | COLLECT | COMBINE | COMMAND | COMMANDS | CONCURRENT | CONSTANT | CONSTRAINT | CONSTRAINTS | CONTAINS
    | CONTINUE | COPY | EXTENSION
    | BUILT | COUNT | CREATE | CSV | CYPHER
    | CURRENT | DATABASE | DATABASES | DECLARATION | DECLARATIONS | DEFAULT | DEFINED | DELETE | DESC | DESCENDING | DETACH | DIFFERENT | DISTINCT | DROP | EACH
    | ELEMENTS | ELSE | ENCRYPTED | END | ERROR | FAIL
    | ENDS | EXECUTABLE | EXIST | EXISTENCE | EXISTS | EXPLAIN | FALSE | FIELDTERMINATOR | FILTER | FINISH | FIRST | FOR | FOREACH | FROM | FULLTEXT | FUNCTION
    | FUNCTIONS | GRANT | GROUPS | HEADERS | HOME | IF | IN | INDEX | INDEXES | INSTALL | INF | INFINITY | INSERT | IS | JOIN | JOINS | KEY | LABEL | LAST | LEADING | LET | LIMIT | LOAD
    | LOOKUP | MATCH | MERGE | NAN | NODE | NODETACH | NONE
    | NEXT | NORMALIZED | NULL | NULLS | OF | OFFSET | ON | OPTIONAL | OPTIONS | OR | ORDER | PASSWORD | PLAINTEXT | POINT
    | PRIMARY | PRIVILEGE | PRIVILEGES | PROCEDURE | PROCEDURES | PROFILE | PROPERTY | RANGE | REDUCE | REL | RELATIONSHIP | RELATIONSHIPS | RELEVANCE | REMOVE | RENAME | REPEATABLE | REPLACE | REPORT
    | REQUIRE | REQUIRED | RETRY | RETURN | REVOKE | ROLE | ROLES | ROW | ROWS | RRF | SCAN | SCORE | SEARCH | SECOND
    | SEEK
    | SECONDS | SET | SETTING | SETTINGS | SHORTEST | SHORTESTPATH | SHOW | SINGLE | SKIP_ | STARTS | STATUS | SUSPENDED | TABLE | TERMINATE | TEXT | THEN | TO | TRAILING | TRANSACTION | TRANSACTIONS | TRIM | TRUE | TYPE | TYPED | UNION | UNIQUE | UNIQUENESS
    | UNWIND | USE | USER | USERS | USING | VECTOR | WEIGHT | WHEN | WHERE | WITH | WRRF | XOR | YIELD
    ;

// ------------------------------------------------------------------------------------------------
// Lexer
// ------------------------------------------------------------------------------------------------
ACTIVE : 'ACTIVE' ;
COPY : 'COPY' ;
EXTENSION : 'EXTENSION' ;
INSTALL : 'INSTALL' ;
PRIMARY : 'PRIMARY' ;
TABLE : 'TABLE' ;
ALIAS : 'ALIAS' ;
ALIASES : 'ALIASES' ;
AUTH : 'AUTH' ;
COMMAND : 'COMMAND' ;
COMMANDS : 'COMMANDS' ;
PRIVILEGE : 'PRIVILEGE' ;
PRIVILEGES : 'PRIVILEGES' ;
ALL : 'ALL' ;
ALLSHORTESTPATHS : 'ALLSHORTESTPATHS' ;
ALTER : 'ALTER' ;
AND : 'AND' ;
ANY : 'ANY' ;
AS : 'AS' ;
ASC : 'ASC' ;
ASCENDING : 'ASCENDING' ;
ASSERT : 'ASSERT' ;
BOTH : 'BOTH' ;
BREAK : 'BREAK' ;
BUILT : 'BUILT' ;
BY : 'BY' ;
CALL : 'CALL' ;
CASE : 'CASE' ;
CHANGE : 'CHANGE' ;
COLLECT : 'COLLECT' ;
COMBINE : 'COMBINE' ;
CONCURRENT : 'CONCURRENT' ;
CONSTANT : 'CONSTANT' ;
CONSTRAINT : 'CONSTRAINT' ;
CONSTRAINTS : 'CONSTRAINTS' ;
CONTAINS : 'CONTAINS' ;
CONTINUE : 'CONTINUE' ;
COUNT : 'COUNT' ;
CREATE : 'CREATE' ;
CSV : 'CSV' ;
CYPHER : 'CYPHER' ;
CURRENT : 'CURRENT' ;
DATABASE : 'DATABASE' ;
DATABASES : 'DATABASES' ;
DECLARATION : 'DECLARATION' ;
DECLARATIONS : 'DECLARATIONS' ;
DEFAULT : 'DEFAULT' ;
DEFINED : 'DEFINED' ;
DELETE : 'DELETE' ;
DESC : 'DESC' ;
DESCENDING : 'DESCENDING' ;
DETACH : 'DETACH' ;
DIFFERENT : 'DIFFERENT' ;
DISTINCT : 'DISTINCT' ;
DROP : 'DROP' ;
EACH : 'EACH' ;
ELEMENTS : 'ELEMENTS' ;
ELSE : 'ELSE' ;
ENCRYPTED : 'ENCRYPTED' ;
END : 'END' ;
ENDS : 'ENDS' ;
ERROR : 'ERROR' ;
EXECUTABLE : 'EXECUTABLE' ;
EXIST : 'EXIST' ;
EXISTENCE : 'EXISTENCE' ;
EXISTS : 'EXISTS' ;
EXPLAIN : 'EXPLAIN' ;
FALSE : 'FALSE' ;
FAIL : 'FAIL' ;
FIELDTERMINATOR : 'FIELDTERMINATOR' ;
FILTER : 'FILTER' ;
FINISH : 'FINISH' ;
FIRST : 'FIRST' ;
FOR : 'FOR' ;
FOREACH : 'FOREACH' ;
FROM : 'FROM' ;
FULLTEXT : 'FULLTEXT' ;
FUNCTION : 'FUNCTION' ;
FUNCTIONS : 'FUNCTIONS' ;
GRANT : 'GRANT' ;
GROUPS : 'GROUPS' ;
HEADERS : 'HEADERS' ;
HOME : 'HOME' ;
IF : 'IF' ;
IN : 'IN' ;
INDEX : 'INDEX' ;
INF : 'INF' ;
INFINITY : 'INFINITY' ;
INDEXES : 'INDEXES' ;
INSERT : 'INSERT' ;
IS : 'IS' ;
JOIN : 'JOIN' ;
JOINS : 'JOINS' ;
KEY : 'KEY' ;
LABEL : 'LABEL' ;
LAST : 'LAST' ;
LEADING : 'LEADING' ;
LET : 'LET' ;
LIMIT : 'LIMIT' ;
LOAD : 'LOAD' ;
LOOKUP : 'LOOKUP' ;
MATCH : 'MATCH' ;
MERGE : 'MERGE' ;
NEXT : 'NEXT' ;
NAN : 'NAN' ;
NODE : 'NODE' ;
NODETACH : 'NODETACH' ;
NONE : 'NONE' ;
NORMALIZED : 'NORMALIZED' ;
NOT : 'NOT' ;
NULL : 'NULL' ;
NULLS : 'NULLS' ;
OF : 'OF' ;
OFFSET : 'OFFSET' ;
ON : 'ON' ;
OPTIONAL : 'OPTIONAL' ;
OPTIONS : 'OPTIONS' ;
OR : 'OR' ;
ORDER : 'ORDER' ;
PASSWORD : 'PASSWORD' ;
PLAINTEXT : 'PLAINTEXT' ;
POINT : 'POINT' ;
PROCEDURE : 'PROCEDURE' ;
PROCEDURES : 'PROCEDURES' ;
PROFILE : 'PROFILE' ;
PROPERTY : 'PROPERTY' ;
RANGE : 'RANGE' ;
REDUCE : 'REDUCE' ;
REL : 'REL' ;
RELATIONSHIP : 'RELATIONSHIP' ;
RELATIONSHIPS : 'RELATIONSHIPS' ;
RELEVANCE : 'RELEVANCE' ;
REMOVE : 'REMOVE' ;
RENAME : 'RENAME' ;
REPLACE : 'REPLACE' ;
REPEATABLE : 'REPEATABLE' ;
REPORT : 'REPORT' ;
REQUIRE : 'REQUIRE' ;
REQUIRED : 'REQUIRED' ;
RETRY : 'RETRY' ;
RETURN : 'RETURN' ;
REVOKE : 'REVOKE' ;
ROLE : 'ROLE' ;
ROLES : 'ROLES' ;
ROW : 'ROW' ;
ROWS : 'ROWS' ;
RRF : 'RRF' ;
SCAN : 'SCAN' ;
SCORE : 'SCORE' ;
SEEK : 'SEEK' ;
SEARCH : 'SEARCH' ;
SECOND : 'SECOND' ;
SECONDS : 'SECONDS' ;
SET : 'SET' ;
SETTING : 'SETTING' ;
SETTINGS : 'SETTINGS' ;
SHORTEST : 'SHORTEST' ;
SHORTESTPATH : 'SHORTESTPATH' ;
SHOW : 'SHOW' ;
SINGLE : 'SINGLE' ;
SKIP_ : 'SKIP' ;
STARTS : 'STARTS' ;
STATUS : 'STATUS' ;
SUSPENDED : 'SUSPENDED' ;
TERMINATE : 'TERMINATE' ;
TEXT : 'TEXT' ;
THEN : 'THEN' ;
TO : 'TO' ;
TRAILING : 'TRAILING' ;
TRANSACTION : 'TRANSACTION' ;
TRANSACTIONS : 'TRANSACTIONS' ;
TRIM : 'TRIM' ;
TRUE : 'TRUE' ;
TYPE : 'TYPE' ;
TYPED : 'TYPED' ;
UNION : 'UNION' ;
UNIQUE : 'UNIQUE' ;
UNIQUENESS : 'UNIQUENESS' ;
UNWIND : 'UNWIND' ;
USE : 'USE' ;
USER : 'USER' ;
USERS : 'USERS' ;
USING : 'USING' ;
VECTOR : 'VECTOR' ;
WEIGHT : 'WEIGHT' ;
WHEN : 'WHEN' ;
WHERE : 'WHERE' ;
WITH : 'WITH' ;
WRRF : 'WRRF' ;
XOR : 'XOR' ;
YIELD : 'YIELD' ;

// Numbers. A digit run glued to letters is lexed whole as BAD_NUMBER so `0x1G` and `12ab` fail
// as invalid number literals instead of splitting into a number and a name.
// An underscore may separate digits (1_000_000, 0x_13af, 6.022_1E23).
FLOAT
    : DIGITS '.' DIGITS EXPONENT?
    | '.' DIGITS EXPONENT?
    | DIGITS EXPONENT
    ;
INTEGER
    : '0X' ('_'? HEX_DIGIT)+
    | '0O' ('_'? [0-7])+
    | '0' [0-7]*
    | [1-9] ('_'? DIGIT)*
    ;
BAD_NUMBER : DIGIT [0-9A-Z_]* ;

fragment DIGIT : [0-9] ;
fragment HEX_DIGIT : [0-9A-F] ;
fragment DIGITS : DIGIT ('_'? DIGIT)* ;
fragment EXPONENT : 'E' [+-]? DIGITS ;

STRING
    : '\'' (~['\\] | '\\' .)* '\''
    | '"' (~["\\] | '\\' .)* '"'
    ;

DYNAMIC_LABEL : '$(' ;
PARAMETER : '$' (IDENTIFIER | ESCAPED_IDENTIFIER | DIGIT+) ;

IDENTIFIER : [\p{ID_Start}_] [\p{ID_Continue}]* ;

ESCAPED_IDENTIFIER : '`' (~'`' | '``')* '`' ;

// Operators and punctuation.
DOTDOT : '..' ;
DOT : '.' ;
COMMA : ',' ;
SEMI : ';' ;
COLONCOLON : '::' ;
COLON : ':' ;
LPAREN : '(' ;
RPAREN : ')' ;
LBRACE : '{' ;
RBRACE : '}' ;
LBRACK : '[' ;
RBRACK : ']' ;
PLUS_EQ : '+=' ;
REGEX_MATCH : '=~' ;
EQ : '=' ;
NEQ : '<>' | '!=' ;
LE : '<=' ;
GE : '>=' ;
LT : '<' ;
GT : '>' ;
PLUS : '+' ;
MINUS : '-' ;
// Unicode dashes are accepted in relationship arrows only; as an operator they are an error.
DASH : '\u00AD' | '\u2010' | '\u2011' | '\u2012' | '\u2013' | '\u2014' | '\u2015' | '\u2212' | '\uFE58' | '\uFE63' | '\uFF0D' ;
STAR : '*' ;
SLASH : '/' ;
PERCENT : '%' ;
CARET : '^' ;
CONCAT : '||' ;
PIPE : '|' ;
AMP : '&' ;
BANG : '!' ;

WHITESPACE : [ \t\n\r\u000B\u000C\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\u001C-\u001F]+ -> skip ;
LINE_COMMENT : '//' ~[\r\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;
// A comment left open reaches the end of the input; the parser rejects this token by name.
UNTERMINATED_COMMENT : '/*' (~'*' | '*'+ ~[*/])* '*'* EOF ;
