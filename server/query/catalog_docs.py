"""One-line descriptions of the built-in procedures and functions, for SHOW PROCEDURES / SHOW FUNCTIONS
(kept apart from the implementations so that the registries stay small)."""
from __future__ import annotations

PROCEDURES = {
    "db.awaitIndexes": "Wait until every index is online (search indexes build in the background).",
    "db.index.fulltext.listAvailableAnalyzers": "List the analyzers a full-text index can use.",
    "db.index.fulltext.queryNodes": "Query a full-text node index: nodes and their BM25 scores, best first.",
    "db.index.fulltext.queryRelationships": "Query a full-text relationship index: relationships and their BM25 "
                                            "scores, best first.",
    "db.index.vector.queryNodes": "Query a vector node index: the k nearest nodes and their similarity scores.",
    "db.index.vector.queryRelationships": "Query a vector relationship index: the k nearest relationships and "
                                          "their similarity scores.",
    "db.index.vector.setSearchOptions": "Set a vector index's search options (e.g. how many candidates to visit).",
    "db.labels": "List the node labels in use (by nodes, indexes or constraints), in creation order.",
    "db.propertyKeys": "List every property key ever created, in creation order.",
    "db.relationshipTypes": "List the relationship types in use (by relationships, indexes or constraints), "
                            "in creation order.",
    "dbms.procedures": "List every procedure with its signature and mode.",
    "dbms.components": "The kernel's name, version and edition, as Neo4j tools expect them (Neo4j 5.26 compatible).",
    "db.schema.visualization": "The schema as a graph: one node per label and one relationship per "
                               "(start label, type, end label) seen in the data, with its indexes and constraints "
                               "(virtual nodes and relationships, as Neo4j returns them).",
    "db.awaitIndex": "Wait (up to timeOutSeconds) until the named index is online.",
    "db.createLabel": "Create a label token without any node carrying it (reads of it no longer warn).",
    "db.createRelationshipType": "Create a relationship type token without any relationship of it.",
    "db.createProperty": "Create a property key token without any entity holding it.",
    "db.checkpoint": "Force a checkpoint: write a snapshot of the store and trim its write-ahead log.",
    "db.entity.resolve": "Resolve entity mentions to entity nodes (exact, then fuzzy), creating those not found.",
    "db.retrieve": "Three-lane retrieval for a question: the best nodes with their scores, lanes and evidence.",
    "db.retrieve.response": "db.retrieve's whole response as one row: results, cited answer and diagnostics.",
    "db.retrieve.diagnostics": "The steps db.retrieve takes for a question, with their timings and details.",
    "db.answer": "Answer a question from retrieved sources, with citations (uses the configured AI provider).",
    "apoc.merge.node": "MERGE a node with dynamic labels and identifying properties (APOC).",
    "apoc.merge.relationship": "MERGE a relationship of a dynamic type between two nodes (APOC).",
    "apoc.meta.data": "Labels, types and their properties with value types, sampled from the data (APOC).",
    "apoc.schema.nodes": "The node indexes and constraints of the schema (APOC).",
    "db.create.setNodeVectorProperty": "Set a node property to a vector (checked and stored as FLOAT32).",
    "db.create.setRelationshipVectorProperty": "Set a relationship property to a vector (checked and stored as FLOAT32).",
    "dbms.security.setUserContexts": "Set the contexts (scopes) a user may read.",
}

_TEMPORAL_TYPES = {"date": "Date", "datetime": "DateTime (zoned)", "localdatetime": "LocalDateTime",
                   "localtime": "LocalTime", "time": "Time (zoned)"}

FUNCTIONS = {
    "abs": "The absolute value of a number.", "acos": "The arccosine of a number, in radians.",
    "asin": "The arcsine of a number, in radians.", "atan": "The arctangent of a number, in radians.",
    "atan2": "The arctangent2 of a set of coordinates, in radians.",
    "avg": "The average of a set of numbers or durations.",
    "btrim": "A string with leading and trailing characters (whitespace by default) removed.",
    "ceil": "The smallest integer greater than or equal to a number, as a float.",
    "char_length": "The number of characters in a string.", "character_length": "The number of characters in a string.",
    "coalesce": "The first argument that is not null.", "collect": "A list of the non-null values of a group.",
    "cos": "The cosine of an angle in radians.", "cot": "The cotangent of an angle in radians.",
    "count": "The number of non-null values (or rows, with *) of a group.", "count(*)": "The number of rows of a group.",
    "degrees": "Radians converted to degrees.",
    "duration": "A Duration from a map of components or an ISO 8601 string.",
    "duration.between": "The Duration between two temporal values.",
    "duration.indays": "The Duration between two temporal values in whole days.",
    "duration.inmonths": "The Duration between two temporal values in whole months.",
    "duration.inseconds": "The Duration between two temporal values in seconds.",
    "e": "The base of the natural logarithm.", "elementid": "The element id of a node or relationship.",
    "endnode": "The end node of a relationship.", "exp": "e raised to the power of a number.",
    "floor": "The largest integer less than or equal to a number, as a float.",
    "haversin": "Half the versine of a number.", "head": "The first element of a list.",
    "id": "The integer id of a node or relationship.", "isempty": "Whether a list, map or string is empty.",
    "isnan": "Whether a number is NaN.", "keys": "The property keys of a node, relationship or map.",
    "labels": "The labels of a node.", "last": "The last element of a list.",
    "left": "The leftmost n characters of a string.",
    "length": "The number of relationships in a path.", "log": "The natural logarithm of a number.",
    "log10": "The common logarithm (base 10) of a number.", "lower": "A string in lower case.",
    "ltrim": "A string with leading characters (whitespace by default) removed.",
    "max": "The largest value of a group.", "min": "The smallest value of a group.",
    "nodes": "The nodes of a path.", "normalize": "A string in a Unicode normal form (NFC by default).",
    "nullif": "null if the two arguments are equal, else the first.",
    "percentilecont": "The percentile of a group, interpolating between values.",
    "percentiledisc": "The percentile of a group, rounded to the nearest value.",
    "pi": "The mathematical constant pi.", "properties": "The properties of a node or relationship as a map.",
    "radians": "Degrees converted to radians.", "rand": "A random float in [0, 1).",
    "randomuuid": "A random UUID as a string.", "range": "A list of integers from start to end with a step.",
    "relationships": "The relationships of a path.", "replace": "A string with every occurrence of a search string replaced.",
    "reverse": "A string or list in reverse order.", "right": "The rightmost n characters of a string.",
    "round": "A number rounded (to a precision and with a rounding mode when given).",
    "rtrim": "A string with trailing characters (whitespace by default) removed.",
    "sign": "The sign of a number: -1, 0 or 1.", "sin": "The sine of an angle in radians.",
    "size": "The number of elements of a list or characters of a string.",
    "split": "A list of strings split at a delimiter.", "sqrt": "The square root of a number.",
    "startnode": "The start node of a relationship.", "stdev": "The sample standard deviation of a group.",
    "stdevp": "The population standard deviation of a group.",
    "substring": "A substring from a start index, optionally of a length.", "sum": "The sum of a group of numbers or durations.",
    "tail": "A list without its first element.", "tan": "The tangent of an angle in radians.",
    "timestamp": "The statement's time as milliseconds since the Unix epoch.",
    "toboolean": "A string or boolean converted to a boolean.", "tobooleanlist": "A list converted to booleans.",
    "tobooleanornull": "A value converted to a boolean, or null.", "tofloat": "A value converted to a float.",
    "tofloatlist": "A list converted to floats.", "tofloatornull": "A value converted to a float, or null.",
    "tointeger": "A value converted to an integer.", "tointegerlist": "A list converted to integers.",
    "tointegerornull": "A value converted to an integer, or null.", "tolower": "A string in lower case.",
    "tostring": "A value converted to a string.", "tostringlist": "A list converted to strings.",
    "tostringornull": "A value converted to a string, or null.", "toupper": "A string in upper case.",
    "trim": "A string with leading and trailing characters (whitespace by default) removed.",
    "type": "The type of a relationship.", "upper": "A string in upper case.",
    "valuetype": "The Cypher type of a value, as a string.",
    "vector": "A Vector of a dimension and coordinate type from a list.",
    "vector.similarity.cosine": "The cosine similarity of two vectors, scaled to [0, 1].",
    "vector.similarity.euclidean": "The Euclidean similarity of two vectors, in (0, 1].",
    "vector_dimension_count": "The dimension of a vector.",
    "vector_distance": "The distance between two vectors under a metric (EUCLIDEAN, COSINE, ...).",
    "vector_norm": "The norm of a vector under a metric (EUCLIDEAN or MANHATTAN).",
    "vecf32": "A FLOAT32 vector from a list of numbers (FalkorDB's constructor).",
    "vec.cosineDistance": "1 - the cosine of the angle between two vectors (FalkorDB).",
    "vec.euclideanDistance": "The Euclidean (L2) distance between two vectors (FalkorDB).",
}
for _name, _type in _TEMPORAL_TYPES.items():
    FUNCTIONS[_name] = f"A {_type} from a map, an ISO 8601 string, or the statement clock."
    FUNCTIONS[f"{_name}.realtime"] = f"The current {_type} from the real-time clock."
    FUNCTIONS[f"{_name}.statement"] = f"The current {_type} from the statement clock."
    FUNCTIONS[f"{_name}.transaction"] = f"The current {_type} from the transaction clock."
    FUNCTIONS[f"{_name}.truncate"] = f"A temporal value truncated to a unit, as a {_type}."
FUNCTIONS.update({
    "ai.text.embed": "The embedding vector of a text, from the configured embedder.",
    "genai.vector.encode": "The embedding vector of a text (Neo4j's GenAI name for ai.text.embed).",
    "db.index.fulltext.escape": "A string with the full-text query syntax characters escaped.",
    "text.jarowinklerdistance": "The Jaro-Winkler distance of two strings (1 - similarity).",
    "text.jarowinklersimilarity": "The Jaro-Winkler similarity of two strings, from 0 to 1.",
    "text.levenshtein": "The Levenshtein edit distance of two strings.",
    "text.levenshteinsimilarity": "The Levenshtein similarity of two strings, from 0 to 1.",
    "text.trigram.similarity": "The trigram similarity of two strings, from 0 to 1.",
})
for _name in ("jarowinklerdistance", "jarowinklersimilarity", "levenshteindistance", "levenshteinsimilarity"):
    FUNCTIONS[f"apoc.text.{_name}"] = FUNCTIONS.get(f"text.{_name}", FUNCTIONS["text.levenshtein"]) + " (APOC name)"
FUNCTIONS["datetime.fromepoch"] = "A DateTime from seconds and nanoseconds since the Unix epoch."
FUNCTIONS["datetime.fromepochmillis"] = "A DateTime from milliseconds since the Unix epoch."


def procedure_description(name: str, signature: str = "") -> str:
    """The written description, else the signature (a procedure added without one still says something)."""
    return PROCEDURES.get(name) or signature


def function_description(name: str) -> str:
    """The written description, else a generic one (a function added without one still says something)."""
    return FUNCTIONS.get(name.lower()) or f"The function {name}()."


# -- function signatures (SHOW FUNCTIONS' signature, argumentDescription, returnDescription) ----------------
# Neo4j 5's form, one line per function: ``name(argument :: TYPE, ...) :: RETURN TYPE``; optional arguments
# are listed too (the registry's arity says how many may be left out). A function missing here gets its
# argument names from its implementation, typed ANY (see ``function_signature``).
_NUMBER = "INTEGER | FLOAT"
_SIGNATURES = [
    f"abs(input :: {_NUMBER}) :: {_NUMBER}", "atan2(y :: FLOAT, x :: FLOAT) :: FLOAT",
    "ceil(input :: FLOAT) :: FLOAT", "floor(input :: FLOAT) :: FLOAT",
    f"round(value :: FLOAT, precision :: {_NUMBER}, mode :: STRING) :: FLOAT",
    f"sign(input :: {_NUMBER}) :: INTEGER", f"isNaN(input :: {_NUMBER}) :: BOOLEAN",
    "e() :: FLOAT", "pi() :: FLOAT", "rand() :: FLOAT", "randomUUID() :: STRING", "timestamp() :: INTEGER",
    f"avg(input :: {_NUMBER} | DURATION) :: {_NUMBER} | DURATION", "collect(input :: ANY) :: LIST<ANY>",
    "count(input :: ANY) :: INTEGER", "max(input :: ANY) :: ANY", "min(input :: ANY) :: ANY",
    "percentileCont(input :: FLOAT, percentile :: FLOAT) :: FLOAT",
    f"percentileDisc(input :: {_NUMBER}, percentile :: FLOAT) :: {_NUMBER}",
    "stDev(input :: FLOAT) :: FLOAT", "stDevP(input :: FLOAT) :: FLOAT",
    f"sum(input :: {_NUMBER} | DURATION) :: {_NUMBER} | DURATION",
    "coalesce(input :: ANY) :: ANY", "nullIf(v1 :: ANY, v2 :: ANY) :: ANY", "valueType(input :: ANY) :: STRING",
    "elementId(input :: NODE | RELATIONSHIP) :: STRING", "id(input :: NODE | RELATIONSHIP) :: INTEGER",
    "startNode(input :: RELATIONSHIP) :: NODE", "endNode(input :: RELATIONSHIP) :: NODE",
    "type(input :: RELATIONSHIP) :: STRING", "labels(input :: NODE) :: LIST<STRING>",
    "keys(input :: NODE | RELATIONSHIP | MAP) :: LIST<STRING>",
    "properties(input :: NODE | RELATIONSHIP | MAP) :: MAP",
    "length(input :: PATH) :: INTEGER", "nodes(input :: PATH) :: LIST<NODE>",
    "relationships(input :: PATH) :: LIST<RELATIONSHIP>",
    "head(list :: LIST<ANY>) :: ANY", "last(list :: LIST<ANY>) :: ANY", "tail(input :: LIST<ANY>) :: LIST<ANY>",
    "isEmpty(input :: LIST<ANY> | MAP | STRING) :: BOOLEAN", "size(input :: STRING | LIST<ANY>) :: INTEGER",
    "range(start :: INTEGER, end :: INTEGER, step :: INTEGER) :: LIST<INTEGER>",
    "reverse(input :: STRING | LIST<ANY>) :: STRING | LIST<ANY>",
    "toBoolean(input :: BOOLEAN | STRING | INTEGER) :: BOOLEAN", "toBooleanOrNull(input :: ANY) :: BOOLEAN",
    "toBooleanList(input :: LIST<ANY>) :: LIST<BOOLEAN>", f"toFloat(input :: STRING | {_NUMBER}) :: FLOAT",
    "toFloatOrNull(input :: ANY) :: FLOAT", "toFloatList(input :: LIST<ANY>) :: LIST<FLOAT>",
    f"toInteger(input :: BOOLEAN | STRING | {_NUMBER}) :: INTEGER", "toIntegerOrNull(input :: ANY) :: INTEGER",
    "toIntegerList(input :: LIST<ANY>) :: LIST<INTEGER>", "toString(input :: ANY) :: STRING",
    "toStringOrNull(input :: ANY) :: STRING", "toStringList(input :: LIST<ANY>) :: LIST<STRING>",
    "left(original :: STRING, length :: INTEGER) :: STRING", "right(original :: STRING, length :: INTEGER) :: STRING",
    "replace(original :: STRING, search :: STRING, replace :: STRING) :: STRING",
    "split(original :: STRING, splitDelimiter :: STRING | LIST<STRING>) :: LIST<STRING>",
    "substring(original :: STRING, start :: INTEGER, length :: INTEGER) :: STRING",
    "normalize(input :: STRING, normalForm :: STRING) :: STRING",
    "point(input :: MAP) :: POINT", "point.distance(from :: POINT, to :: POINT) :: FLOAT",
    "distance(from :: POINT, to :: POINT) :: FLOAT",
    "point.withinBBox(point :: POINT, lowerLeft :: POINT, upperRight :: POINT) :: BOOLEAN",
    "duration(input :: ANY) :: DURATION",
    "datetime.fromEpoch(seconds :: INTEGER | FLOAT, nanoseconds :: INTEGER | FLOAT) :: ZONED DATETIME",
    "datetime.fromEpochMillis(milliseconds :: INTEGER | FLOAT) :: ZONED DATETIME",
    "vector(vectorValue :: STRING | LIST<INTEGER | FLOAT>, dimension :: INTEGER, coordinateType :: STRING) :: VECTOR",
    "vector.similarity.cosine(a :: LIST<INTEGER | FLOAT>, b :: LIST<INTEGER | FLOAT>) :: FLOAT",
    "vector.similarity.euclidean(a :: LIST<INTEGER | FLOAT>, b :: LIST<INTEGER | FLOAT>) :: FLOAT",
    "vector_dimension_count(vector :: VECTOR) :: INTEGER",
    "vector_distance(vector1 :: VECTOR, vector2 :: VECTOR, vectorDistanceMetric :: STRING) :: FLOAT",
    "vector_norm(vector :: VECTOR, vectorDistanceMetric :: STRING) :: FLOAT",
    "vecf32(values :: LIST<INTEGER | FLOAT>) :: VECTOR",
    "vec.cosineDistance(a :: VECTOR | LIST<INTEGER | FLOAT>, b :: VECTOR | LIST<INTEGER | FLOAT>) :: FLOAT",
    "vec.euclideanDistance(a :: VECTOR | LIST<INTEGER | FLOAT>, b :: VECTOR | LIST<INTEGER | FLOAT>) :: FLOAT",
    "genai.vector.encode(resource :: STRING, provider :: STRING, configuration :: MAP) :: LIST<FLOAT>",
    "ai.text.embed(text :: STRING, configuration :: MAP) :: LIST<FLOAT>",
    "coll.distinct(list :: LIST<ANY>) :: LIST<ANY>", "coll.flatten(list :: LIST<ANY>, depth :: INTEGER) :: LIST<ANY>",
    "coll.indexOf(list :: LIST<ANY>, value :: ANY) :: INTEGER",
    "coll.insert(list :: LIST<ANY>, index :: INTEGER, value :: ANY) :: LIST<ANY>",
    "coll.max(list :: LIST<ANY>) :: ANY", "coll.min(list :: LIST<ANY>) :: ANY",
    "coll.remove(list :: LIST<ANY>, index :: INTEGER) :: LIST<ANY>", "coll.sort(list :: LIST<ANY>) :: LIST<ANY>",
    "db.index.fulltext.escape(input :: STRING) :: STRING", "file() :: STRING", "linenumber() :: INTEGER",
]
_SIGNATURES += [f"{name}(input :: FLOAT) :: FLOAT" for name in (
    "acos", "asin", "atan", "cos", "cot", "sin", "tan", "degrees", "radians", "exp", "log", "log10", "sqrt",
    "haversin")]
_SIGNATURES += [f"{name}(input :: STRING) :: STRING" for name in ("toUpper", "toLower", "upper", "lower")]
_SIGNATURES += [f"{name}(input :: STRING) :: INTEGER" for name in ("char_length", "character_length")]
_SIGNATURES += [f"{name}(original :: STRING, trimCharacterString :: STRING) :: STRING"
                for name in ("trim", "btrim", "ltrim", "rtrim")]
_SIGNATURES += [f"duration.{name}(from :: ANY, to :: ANY) :: DURATION"
                for name in ("between", "inDays", "inMonths", "inSeconds")]
_SIGNATURES += [f"text.{name}(text1 :: STRING, text2 :: STRING) :: {'INTEGER' if name == 'levenshtein' else 'FLOAT'}"
                for name in ("jaroWinklerDistance", "jaroWinklerSimilarity", "levenshtein", "levenshteinSimilarity",
                             "trigram.similarity")]
for _name, _type in (("date", "DATE"), ("datetime", "ZONED DATETIME"), ("localdatetime", "LOCAL DATETIME"),
                     ("localtime", "LOCAL TIME"), ("time", "ZONED TIME")):
    _SIGNATURES.append(f"{_name}(input :: ANY) :: {_type}")
    _SIGNATURES += [f"{_name}.{clock}(timezone :: ANY) :: {_type}" for clock in ("realtime", "statement", "transaction")]
    _SIGNATURES.append(f"{_name}.truncate(unit :: STRING, input :: ANY, fields :: MAP) :: {_type}")

FUNCTION_SIGNATURES: dict[str, str] = {text.split("(", 1)[0].lower(): text for text in _SIGNATURES}


def function_signature(name: str, fn=None, arity: tuple[int, int | None] | None = None) -> str:
    """Neo4j's signature text for function ``name``: from the table, else built from the implementation's
    parameter names (``fn(ctx, ...)``, typed ANY) or, failing that, from its arity."""
    text = FUNCTION_SIGNATURES.get(name.lower())
    if text is not None:
        return name + text[len(name):]               # spelled as registered
    params = _parameter_names(fn)
    if params is None:
        low, high = arity or (0, 0)
        params = [f"arg{i}" for i in range(1, (low if high is None else high) + 1)]
        if high is None:
            params.append("...")
    return f"{name}({', '.join(p if p == '...' else f'{p} :: ANY' for p in params)}) :: ANY"


def function_arguments(signature: str) -> list[dict]:
    """SHOW FUNCTIONS' argumentDescription from a signature: ``[{name, description, type}]``."""
    inside = signature[signature.index("(") + 1:signature.rindex(")")]
    out = []
    for part in _split_arguments(inside):
        if " :: " not in part:
            continue
        arg_name, arg_type = part.split(" :: ", 1)
        out.append({"name": arg_name, "description": part, "type": arg_type, "isDeprecated": False})
    return out


def function_return(signature: str) -> str:
    """SHOW FUNCTIONS' returnDescription from a signature: the type after the closing parenthesis."""
    return signature[signature.rindex(")") + 1:].removeprefix(" :: ").strip()


def is_builtin_function(name: str) -> bool:
    """Whether Neo4j would call ``name`` built in: APOC's functions are a library's (isBuiltIn false)."""
    return not name.lower().startswith("apoc.")


def _split_arguments(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char == "<":
            depth += 1
        elif char == ">":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    if text[start:].strip():
        parts.append(text[start:].strip())
    return parts


def _parameter_names(fn) -> list[str] | None:
    """``fn(ctx, a, b=1, *rest)``'s argument names (``...`` for a variadic tail), or None when unreadable."""
    import inspect
    if fn is None:
        return None
    try:
        parameters = list(inspect.signature(fn).parameters.values())[1:]
    except (TypeError, ValueError):
        return None
    names = []
    for parameter in parameters:
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            names.append("...")
        elif parameter.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            names.append(parameter.name)
    return names
