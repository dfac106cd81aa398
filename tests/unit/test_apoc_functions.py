"""The APOC function library: apoc.coll / map / text / convert / date / number / util / meta / node / agg,
their null handling and their typed errors."""
from __future__ import annotations

import json
import re

import pytest

from relate.errors import ArgumentError, CypherSyntaxError, CypherTypeError, ProcedureCallFailed
from tests.helpers import rows


def one(db, expr: str, params: dict | None = None):
    """The value of one expression."""
    return rows(db, f"RETURN {expr} AS v", params)[0][0]


@pytest.mark.parametrize("expr, expected", [
    ("apoc.coll.sum([1, 2, 3.5])", 6.5),
    ("apoc.coll.sum([1, 2])", 3.0),
    ("apoc.coll.sumLongs([1, 2, 3.9])", 6),
    ("apoc.coll.avg([1, 2, 3, 4])", 2.5),
    ("apoc.coll.avg([])", None),
    ("apoc.coll.max([1, 5, 3])", 5),
    ("apoc.coll.min([2, 0.5, 3])", 0.5),
    ("apoc.coll.max([1, 'a', true])", 1),           # ORDER BY across types: ... STRING < BOOLEAN < NUMBER
    ("apoc.coll.min([1, 'a', true])", "a"),
    ("apoc.coll.max([])", None),
    ("apoc.coll.sort([3, 1, 2])", [1, 2, 3]),
    ("apoc.coll.sort(['b', 1, 'a'])", ["a", "b", 1]),
    ("apoc.coll.sortMaps([{n: 'b'}, {n: 'a'}, {n: 'c'}], 'n')", [{"n": "c"}, {"n": "b"}, {"n": "a"}]),
    ("apoc.coll.sortMaps([{n: 'b'}, {n: 'a'}, {n: 'c'}], '^n')", [{"n": "a"}, {"n": "b"}, {"n": "c"}]),
    ("apoc.coll.sortMulti([{a: 1, b: 2}, {a: 1, b: 3}, {a: 0, b: 9}], ['^a', 'b'])",
     [{"a": 0, "b": 9}, {"a": 1, "b": 3}, {"a": 1, "b": 2}]),
    ("apoc.coll.reverse([1, 2, 3])", [3, 2, 1]),
    ("apoc.coll.contains([1, 2, 3], 2.0)", True),     # Cypher equality: 2 = 2.0
    ("apoc.coll.contains([[1, 2]], [1, 2])", True),
    ("apoc.coll.contains(null, 1)", False),
    ("apoc.coll.containsAll([1, 2, 3], [1, 3])", True),
    ("apoc.coll.containsAll([1, 2, 3], [1, 4])", False),
    ("apoc.coll.containsAny([1, 2, 3], [9, 3])", True),
    ("apoc.coll.containsDuplicates([1, 2, 1.0])", True),
    ("apoc.coll.toSet([1, 1.0, [1], [1.0], 'a', 'a'])", [1, [1], "a"]),
    ("apoc.coll.flatten([1, [2, [3]], 4])", [1, 2, [3], 4]),
    ("apoc.coll.flatten([1, [2, [3]], 4], true)", [1, 2, 3, 4]),
    ("apoc.coll.union([1, 2], [2, 3])", [1, 2, 3]),
    ("apoc.coll.unionAll([1, 2], [2, 3])", [1, 2, 2, 3]),
    ("apoc.coll.intersection([1, 2, 2, 3], [2, 3, 4])", [2, 3]),
    ("apoc.coll.subtract([1, 2, 2, 3], [3])", [1, 2]),
    ("apoc.coll.removeAll([1, 2, 2, 3], [3])", [1, 2, 2]),
    ("apoc.coll.disjunction([1, 2, 3], [3, 4])", [1, 2, 4]),
    ("apoc.coll.isEqualCollection([1, 2, 2], [2, 1, 2])", True),
    ("apoc.coll.isEqualCollection([1, 2], [2, 1, 1])", False),
    ("apoc.coll.zip([1, 2, 3], ['a', 'b'])", [[1, "a"], [2, "b"], [3, None]]),
    ("apoc.coll.pairs([1, 2, 3])", [[1, 2], [2, 3], [3, None]]),
    ("apoc.coll.pairsMin([1, 2, 3])", [[1, 2], [2, 3]]),
    ("apoc.coll.partition([1, 2, 3, 4, 5], 2)", [[1, 2], [3, 4], [5]]),
    ("apoc.coll.frequencies(['a', 'b', 'a'])", [{"item": "a", "count": 2}, {"item": "b", "count": 1}]),
    ("apoc.coll.frequenciesAsMap(['a', 1, 'a', 1.0])", {"a": 2, "1": 1, "1.0": 1}),
    ("apoc.coll.occurrences([1, 2, 1, 1.0], 1)", 3),
    ("apoc.coll.indexOf(['a', 'b'], 'b')", 1),
    ("apoc.coll.indexOf(['a', 'b'], 'z')", -1),
    ("apoc.coll.remove([1, 2, 3, 4], 1, 2)", [1, 4]),
    ("apoc.coll.remove([1, 2, 3], 9)", [1, 2, 3]),
    ("apoc.coll.insert([1, 3], 1, 2)", [1, 2, 3]),
    ("apoc.coll.insertAll([1, 4], 1, [2, 3])", [1, 2, 3, 4]),
    ("apoc.coll.set([1, 2, 3], 1, 9)", [1, 9, 3]),
    ("apoc.coll.fill('x', 3)", ["x", "x", "x"]),
    ("apoc.coll.duplicates([1, 2, 1, 3, 2])", [1, 2]),
    ("apoc.coll.duplicatesWithCount([1, 2, 1, 1])", [{"item": 1, "count": 3}]),
    ("apoc.coll.different([1, 2, 3])", True),
    ("apoc.coll.different([1, 2, 1.0])", False),
    ("apoc.coll.dropDuplicateNeighbors([1, 1, 2, 1, 1])", [1, 2, 1]),
    ("apoc.coll.combinations([1, 2, 3], 2)", [[1, 2], [1, 3], [2, 3]]),
    ("apoc.coll.combinations([1, 2, 3], 1, 2)", [[1], [2], [3], [1, 2], [1, 3], [2, 3]]),
    ("apoc.coll.runningTotal([1, 2, 3.5])", [1, 3, 6.5]),
    ("size(apoc.coll.shuffle([1, 2, 3]))", 3),
    ("apoc.coll.randomItem([])", None),
    ("size(apoc.coll.randomItems([1, 2, 3], 2))", 2),
])
def test_coll_functions(db, expr, expected):
    assert one(db, expr) == expected


def test_coll_stdev_and_nulls(db):
    assert one(db, "apoc.coll.stdev([10, 12, 23, 23, 16, 23, 21, 16])") == pytest.approx(5.237229365663817)
    assert one(db, "apoc.coll.stdev([10, 12, 23, 23, 16, 23, 21, 16], false)") == pytest.approx(4.898979485566356)
    for fn in ("sum", "avg", "max", "min", "sort", "toSet", "flatten", "reverse", "pairs", "frequencies"):
        assert one(db, f"apoc.coll.{fn}(null)") is None, fn
    assert one(db, "apoc.coll.union(null, [1])") == [1]
    assert one(db, "apoc.coll.intersection(null, [1])") == []


def test_coll_sort_nodes(db):
    rows(db, "UNWIND [2, 3, 1] AS i CREATE (:N {i: i})")
    assert rows(db, "MATCH (n:N) WITH collect(n) AS ns RETURN [n IN apoc.coll.sortNodes(ns, 'i') | n.i], "
                    "[n IN apoc.coll.sortNodes(ns, '^i') | n.i]") == [([3, 2, 1], [1, 2, 3])]


@pytest.mark.parametrize("expr", ["apoc.coll.sum('x')", "apoc.coll.sum([1, 'a'])", "apoc.coll.sortMaps([1], 'n')",
                                  "apoc.coll.remove([1], 'a')", "apoc.map.merge(1, {})", "apoc.text.lpad(1, 'x')",
                                  "apoc.text.join([1], ',')", "apoc.node.degree(1)", "apoc.agg.product('x')"])
def test_wrong_argument_types_are_type_errors(db, expr):
    with pytest.raises(CypherTypeError) as info:
        one(db, expr)
    assert info.value.code == "Neo.ClientError.Statement.TypeError"


@pytest.mark.parametrize("expr, expected", [
    ("apoc.map.merge({a: 1, b: 2}, {b: 3})", {"a": 1, "b": 3}),
    ("apoc.map.merge(null, {b: 3})", {"b": 3}),
    ("apoc.map.mergeList([{a: 1}, {b: 2}, {a: 3}])", {"a": 3, "b": 2}),
    ("apoc.map.fromPairs([['a', 1], ['b', 2]])", {"a": 1, "b": 2}),
    ("apoc.map.fromLists(['a', 'b'], [1, 2])", {"a": 1, "b": 2}),
    ("apoc.map.fromValues(['a', 1, 'b', 2])", {"a": 1, "b": 2}),
    ("apoc.map.setKey({a: 1}, 'b', 2)", {"a": 1, "b": 2}),
    ("apoc.map.setEntry({a: 1}, 'a', 2)", {"a": 2}),
    ("apoc.map.setPairs({a: 1}, [['b', 2]])", {"a": 1, "b": 2}),
    ("apoc.map.setLists({a: 1}, ['b', 'c'], [2, 3])", {"a": 1, "b": 2, "c": 3}),
    ("apoc.map.setValues({a: 1}, ['b', 2])", {"a": 1, "b": 2}),
    ("apoc.map.removeKey({a: 1, b: {a: 2}}, 'a')", {"b": {"a": 2}}),
    ("apoc.map.removeKey({a: 1, b: {a: 2, c: [{a: 3}]}}, 'a', {recursive: true})", {"b": {"c": [{}]}}),
    ("apoc.map.removeKeys({a: 1, b: 2, c: 3}, ['a', 'c'])", {"b": 2}),
    ("apoc.map.clean({a: 1, b: '', c: null, d: 4}, ['d'], [''])", {"a": 1}),
    ("apoc.map.submap({a: 1, b: 2}, ['a'])", {"a": 1}),
    ("apoc.map.submap({a: 1}, ['a', 'z'], {z: 0})", {"a": 1, "z": 0}),
    ("apoc.map.submap({a: 1}, ['z'], null, false)", {"z": None}),
    ("apoc.map.values({a: 1, b: 2}, ['b', 'a'])", [2, 1]),
    ("apoc.map.values({a: 1}, ['a', 'z'], true)", [1, None]),
    ("apoc.map.get({a: 1}, 'a')", 1),
    ("apoc.map.get({a: 1}, 'z', 9)", 9),
    ("apoc.map.get({a: 1}, 'z', null, false)", None),
    ("apoc.map.mget({a: 1, b: 2}, ['b', 'a'])", [2, 1]),
    ("apoc.map.flatten({a: {b: {c: 1}}, d: 2})", {"a.b.c": 1, "d": 2}),
    ("apoc.map.flatten({a: {b: 1}}, '_')", {"a_b": 1}),
    ("apoc.map.unflatten({`a.b.c`: 1, d: 2})", {"a": {"b": {"c": 1}}, "d": 2}),
    ("apoc.map.groupBy([{k: 'x', v: 1}, {k: 'y', v: 2}, {k: 'x', v: 3}], 'k')",
     {"x": {"k": "x", "v": 3}, "y": {"k": "y", "v": 2}}),
    ("apoc.map.groupByMulti([{k: 1, v: 1}, {k: 1, v: 2}], 'k')", {"1": [{"k": 1, "v": 1}, {"k": 1, "v": 2}]}),
    ("apoc.map.sortedProperties({b: 1, A: 2, c: 3})", [["A", 2], ["b", 1], ["c", 3]]),
    ("apoc.map.dropNullValues({a: 1, b: null})", {"a": 1}),
    ("apoc.map.setKey(null, 'a', 1)", None),
])
def test_map_functions(db, expr, expected):
    assert one(db, expr) == expected


@pytest.mark.parametrize("expr", ["apoc.map.get({a: 1}, 'z')", "apoc.map.submap({a: 1}, ['z'])",
                                  "apoc.map.fromLists(['a'], [1, 2])", "apoc.map.fromValues(['a'])",
                                  "apoc.map.mget({}, ['z'])"])
def test_map_argument_errors(db, expr):
    with pytest.raises(ArgumentError):
        one(db, expr)


@pytest.mark.parametrize("expr, expected", [
    ("apoc.text.join(['a', 'b', null], '-')", "a-b-null"),
    ("apoc.text.capitalize('hello world')", "Hello world"),
    ("apoc.text.capitalizeAll('hello big world')", "Hello Big World"),
    ("apoc.text.decapitalize('Hello')", "hello"),
    ("apoc.text.decapitalizeAll('Hello Big World')", "hello big world"),
    ("apoc.text.swapCase('Hello')", "hELLO"),
    ("apoc.text.camelCase('FOO_BAR')", "fooBar"),
    ("apoc.text.camelCase('Foo22 bar')", "foo22Bar"),
    ("apoc.text.camelCase('Foobar')", "foobar"),
    ("apoc.text.upperCamelCase('foo-bar')", "FooBar"),
    ("apoc.text.upperCamelCase('Foo$$Bar')", "FooBar"),
    ("apoc.text.snakeCase('test Snake Case')", "test-snake-case"),
    ("apoc.text.snakeCase('fooBar')", "foo-bar"),
    ("apoc.text.toUpperCase('fooBar')", "FOO_BAR"),
    ("apoc.text.toUpperCase('foo 22 bar')", "FOO_22_BAR"),
    ("apoc.text.replace('Hello World', '(\\\\w+) (\\\\w+)', '$2 $1')", "World Hello"),
    ("apoc.text.regreplace('a1b22', '\\\\d+', '#')", "a#b#"),
    ("apoc.text.split('a1b22c', '\\\\d+')", ["a", "b", "c"]),
    ("apoc.text.split('a,b,,', ',')", ["a", "b"]),
    ("apoc.text.split('a,b,c', ',', 2)", ["a", "b,c"]),
    ("apoc.text.regexGroups('abc-123 def-456', '(\\\\w+)-(\\\\d+)')", [["abc-123", "abc", "123"], ["def-456", "def", "456"]]),
    ("apoc.text.clean('$-Héllo___World!$')", "helloworld"),
    ("apoc.text.compareCleaned('Hello World!', 'hello-world')", True),
    ("apoc.text.lpad('12', 5, '0')", "00012"),
    ("apoc.text.rpad('ab', 4)", "ab  "),
    ("apoc.text.lpad('abcdef', 3)", "abcdef"),
    ("apoc.text.format('%s is %d, %.2f%%', ['x', 42, 12.345])", "x is 42, 12.35%"),
    ("apoc.text.format('%05d|%-4s|%,d|%x|%b', [-42, 'a', 1234567, 255, null])", "-0042|a   |1,234,567|ff|false"),
    ("apoc.text.format('%2$s %1$s', ['a', 'b'])", "b a"),
    ("apoc.text.slug('Hello World!')", "Hello-World"),
    ("apoc.text.slug('a b', '_')", "a_b"),
    ("apoc.text.repeat('ab', 3)", "ababab"),
    ("apoc.text.indexOf('hello', 'l')", 2),
    ("apoc.text.indexOf('hello', 'l', 3)", 3),
    ("apoc.text.indexOf('hello', 'z')", -1),
    ("apoc.text.indexesOf('hello', 'l')", [2, 3]),
    ("apoc.text.distance('kitten', 'sitting')", 3),
    ("apoc.text.fuzzyMatch('Th1s', 'This')", True),
    ("apoc.text.fuzzyMatch('ab', 'ac')", False),
    ("apoc.text.sorensenDiceSimilarity('belly', 'jolly')", 0.5),
    ("apoc.text.hammingDistance('abc', 'abd')", 1),
    ("apoc.text.code(65)", "A"),
    ("apoc.text.charAt('hello', 1)", 101),
    ("apoc.text.charAt('hello', 9)", None),
    ("apoc.text.hexValue(10)", "000A"),
    ("apoc.text.hexCharAt('A', 0)", "0041"),
    ("apoc.text.byteCount('Jesús')", 6),
    ("apoc.text.bytes('Jesús')", [74, 101, 115, 195, 186, 115]),
    ("apoc.text.base64Encode('hello')", "aGVsbG8="),
    ("apoc.text.base64Decode('aGVsbG8=')", "hello"),
    ("apoc.text.base64UrlDecode(apoc.text.base64UrlEncode('a?b>'))", "a?b>"),
    ("apoc.text.urlencode('a b&c=ü~')", "a+b%26c%3D%C3%BC%7E"),
    ("apoc.text.urldecode('a+b%26c%3D%C3%BC')", "a b&c=ü"),
    ("apoc.text.levenshteinDistance('kitten', 'sitting')", 3),      # the existing alias still answers
])
def test_text_functions(db, expr, expected):
    assert one(db, expr) == expected


def test_text_nulls_and_errors(db):
    for expr in ("apoc.text.capitalize(null)", "apoc.text.replace(null, 'a', 'b')", "apoc.text.split(null, ',')",
                 "apoc.text.lpad(null, 3)", "apoc.text.distance(null, 'a')", "apoc.text.indexOf(null, 'a')",
                 "apoc.text.urlencode(null)", "apoc.text.format(null, [])"):
        assert one(db, expr) is None, expr
    assert one(db, "apoc.text.fuzzyMatch(null, 'a')") is False
    random_text = one(db, "apoc.text.random(12, 'a-c')")
    assert len(random_text) == 12 and set(random_text) <= set("abc")
    for expr in ("apoc.text.hammingDistance('a', 'ab')", "apoc.text.replace('a', '(', 'b')",
                 "apoc.text.base64Decode('!!')", "apoc.text.format('%d', ['x'])", "apoc.text.format('%s', [])",
                 "apoc.text.bytes('a', 'no-such-charset')", "apoc.text.urldecode('%zz')"):
        with pytest.raises(ArgumentError):
            one(db, expr)


def test_to_json_writes_entities_as_apoc_does(db):
    rows(db, "CREATE (:Foo:Bar {name: 'Sherlock'})-[:KNOWS {since: 1993}]->(:Baz)")
    node, rel, path = rows(db, "MATCH p = (a:Foo)-[r]->(b) RETURN apoc.convert.toJson(a), apoc.convert.toJson(r), "
                               "apoc.convert.toJson(p)")[0]
    node_id, end_id = rows(db, "MATCH (a:Foo)-->(b) RETURN id(a), id(b)")[0]
    assert json.loads(node) == {"id": str(node_id), "type": "node", "labels": ["Foo", "Bar"],
                                "properties": {"name": "Sherlock"}}
    assert json.loads(rel) == {"id": json.loads(rel)["id"], "type": "relationship", "label": "KNOWS",
                               "start": {"id": str(node_id), "labels": ["Foo", "Bar"]},
                               "end": {"id": str(end_id), "labels": ["Baz"]}, "properties": {"since": 1993}}
    assert [item["type"] for item in json.loads(path)] == ["node", "relationship", "node"]
    assert one(db, "apoc.convert.toJson({a: [1, 2.5, true, null], d: date('2020-01-02')})") == \
        '{"a":[1,2.5,true,null],"d":"2020-01-02"}'
    assert one(db, "apoc.convert.toJson(null)") is None


@pytest.mark.parametrize("expr, expected", [
    ("apoc.convert.fromJsonMap('{\"a\": {\"b\": [1, 2]}}')", {"a": {"b": [1, 2]}}),
    ("apoc.convert.fromJsonMap('{\"a\": {\"b\": {\"c\": 1}}}', '$.a.b')", {"c": 1}),
    ("apoc.convert.fromJsonList('[1, \"a\", null]')", [1, "a", None]),
    ("apoc.convert.fromJsonList('{\"a\": [1, 2]}', '$.a')", [1, 2]),
    ("apoc.convert.fromJsonList('{\"a\": [[1], [2]]}', '$.a[1]')", [2]),
    ("apoc.convert.toMap({a: 1})", {"a": 1}),
    ("apoc.convert.toList(1)", [1]),
    ("apoc.convert.toList([1])", [1]),
    ("apoc.convert.toSet([1, 2, 1])", [1, 2]),
    ("apoc.convert.toString(1.0)", "1.0"),
    ("apoc.convert.toString([1, 'a'])", '[1,"a"]'),
    ("apoc.convert.toBoolean('yes')", True),
    ("apoc.convert.toBoolean('no')", False),
    ("apoc.convert.toBoolean(0)", False),
    ("apoc.convert.toInteger('42')", 42),
    ("apoc.convert.toInteger('4.9')", 4),
    ("apoc.convert.toInteger('x')", None),
    ("apoc.convert.toInteger(true)", 1),
    ("apoc.convert.toFloat('1.5')", 1.5),
    ("apoc.convert.toSortedJsonMap({b: 1, A: 2, c: {z: 1, y: 2}})", '{"A":2,"b":1,"c":{"z":1,"y":2}}'),
    ("apoc.convert.fromJsonMap(null)", None),
])
def test_convert_functions(db, expr, expected):
    assert one(db, expr) == expected


def test_convert_errors_and_json_properties(db):
    with pytest.raises(ArgumentError):
        one(db, "apoc.convert.fromJsonMap('[1]')")
    with pytest.raises(ArgumentError):
        one(db, "apoc.convert.fromJsonMap('{not json')")
    with pytest.raises(CypherTypeError):
        one(db, "apoc.convert.toMap(1)")
    rows(db, "CREATE (:J {data: '{\"a\": {\"b\": 5}}', plain: 'x'})")
    assert rows(db, "MATCH (j:J) RETURN apoc.convert.getJsonProperty(j, 'data'), "
                    "apoc.convert.getJsonProperty(j, 'data', '$.a.b'), apoc.convert.getJsonPropertyMap(j, 'data'), "
                    "apoc.convert.toMap(j)") == [({"a": {"b": 5}}, 5, {"a": {"b": 5}},
                                                  {"data": '{"a": {"b": 5}}', "plain": "x"})]


@pytest.mark.parametrize("expr, expected", [
    ("apoc.date.format(0)", "1970-01-01 00:00:00"),
    ("apoc.date.format(1600000000, 's', 'yyyy-MM-dd')", "2020-09-13"),
    ("apoc.date.format(1600000000123, 'ms', \"yyyy-MM-dd'T'HH:mm:ss.SSSXXX\", 'Europe/Paris')",
     "2020-09-13T14:26:40.123+02:00"),
    ("apoc.date.format(1600000000000, 'ms', 'EEE, d MMM yyyy hh:mm a Z')", "Sun, 13 Sep 2020 12:26 PM +0000"),
    ("apoc.date.format(1600000000000, 'ms', 'EEEE MMMM dd yy')", "Sunday September 13 20"),
    ("apoc.date.format(1600000000000, 'ms', 'ISO_LOCAL_DATE')", "2020-09-13"),
    ("apoc.date.parse('2020-09-13 12:26:40')", 1600000000000),
    ("apoc.date.parse('2020-09-13 12:26:40', 's')", 1600000000),
    ("apoc.date.parse('13/09/2020', 'ms', 'dd/MM/yyyy')", 1599955200000),
    ("apoc.date.parse('2020-09-13 14:26:40', 'ms', 'yyyy-MM-dd HH:mm:ss', 'Europe/Paris')", 1600000000000),
    ("apoc.date.parse('2020-09-13T14:26:40.5+02:00', 'ms', \"yyyy-MM-dd'T'HH:mm:ss.SXXX\")", 1600000000500),
    ("apoc.date.parse('Sep 13, 2020 12:26 PM', 'ms', 'MMM d, yyyy hh:mm a')", 1599999960000),
    ("apoc.date.parse(null)", None),
    ("apoc.date.toISO8601(1600000000123)", "2020-09-13T12:26:40.123Z"),
    ("apoc.date.toISO8601(1600000000, 's')", "2020-09-13T12:26:40.000Z"),
    ("apoc.date.fromISO8601('2020-09-13T12:26:40.123Z')", 1600000000123),
    ("apoc.date.fromISO8601('2020-09-13T14:26:40+02:00')", 1600000000000),
    ("apoc.date.convert(1500, 'ms', 's')", 1),
    ("apoc.date.convert(2, 'd', 'h')", 48),
    ("apoc.date.add(1000, 'ms', 2, 's')", 3000),
    ("apoc.date.add(1, 'd', -12, 'h')", 0),
    ("apoc.date.field(1600000000000)", 13),
    ("apoc.date.field(1600000000000, 'months')", 9),
    ("apoc.date.field(1600000000000, 'weekdays')", 7),
    ("apoc.date.field(1600000000000, 'hours', 'Europe/Paris')", 14),
    ("apoc.date.fields('2015-01-02 03:04:05 EET', 'yyyy-MM-dd HH:mm:ss zzz')",
     {"years": 2015, "months": 1, "days": 2, "hours": 3, "minutes": 4, "seconds": 5, "weekdays": 5, "zoneid": "EET"}),
])
def test_date_functions(db, expr, expected):
    assert one(db, expr) == expected


def test_date_errors_and_clock(db):
    now = one(db, "apoc.date.currentTimestamp()")
    assert abs(now - one(db, "timestamp()")) < 60_000
    for expr in ("apoc.date.parse('nope')", "apoc.date.format(0, 'fortnights')", "apoc.date.format(0, 'ms', 'yyyy-bb')",
                 "apoc.date.format(0, 'ms', 'yyyy', 'Mars/Olympus')", "apoc.date.fromISO8601('yesterday')"):
        with pytest.raises(ArgumentError):
            one(db, expr)
    with pytest.raises(CypherTypeError):
        one(db, "apoc.date.format('x')")


@pytest.mark.parametrize("expr, expected", [
    ("apoc.number.format(12345.678)", "12,345.678"),
    ("apoc.number.format(12345.6789, '#,##0.00')", "12,345.68"),
    ("apoc.number.format(0.5, '#')", "0"),                        # DecimalFormat rounds half-even
    ("apoc.number.format(1.5, '#')", "2"),
    ("apoc.number.format(12345, '#,##0.00', 'it')", "12.345,00"),
    ("apoc.number.format(7, '000')", "007"),
    ("apoc.number.format(0.256, '#%')", "26%"),
    ("apoc.number.format(-1234.5)", "-1,234.5"),
    ("apoc.number.parseInt('12,345')", 12345),
    ("apoc.number.parseInt('12.345', '', 'it')", 12345),
    ("apoc.number.parseInt('abc')", None),
    ("apoc.number.parseFloat('12,345.67')", 12345.67),
    ("apoc.number.arabicToRoman(1994)", "MCMXCIV"),
    ("apoc.number.romanToArabic('MCMXCIV')", 1994),
    ("apoc.math.maxLong()", 2 ** 63 - 1),
    ("apoc.math.minLong()", -2 ** 63),
    ("apoc.math.maxDouble()", 1.7976931348623157e308),
    ("apoc.math.sigmoid(0)", 0.5),
    ("apoc.math.tanh(0)", 0.0),
])
def test_number_and_math_functions(db, expr, expected):
    assert one(db, expr) == expected


def test_util_functions(db):
    assert one(db, "apoc.util.md5(['ab', 'c'])") == "900150983cd24fb0d6963f7d28e17f72"
    assert one(db, "apoc.util.sha1(['abc'])") == "a9993e364706816aba3e25717850c26c9cd0d89d"
    assert one(db, "apoc.util.sha256(['abc'])").startswith("ba7816bf")
    assert len(one(db, "apoc.util.sha512(['abc'])")) == 128
    assert one(db, "apoc.util.md5(null)") is None
    assert one(db, "apoc.util.decompress(apoc.util.compress('héllo'))") == "héllo"
    assert one(db, "apoc.util.decompress(apoc.util.compress('x', {compression: 'DEFLATE'}), "
                   "{compression: 'DEFLATE'})") == "x"
    assert isinstance(one(db, "apoc.util.compress('x')"), bytes)
    with pytest.raises(ArgumentError):
        one(db, "apoc.util.decompress(apoc.util.compress('x'), {compression: 'DEFLATE'})")
    assert one(db, "apoc.util.validatePredicate(false, 'never', [])") is True
    with pytest.raises(ProcedureCallFailed, match="age 7 is too low"):
        one(db, "apoc.util.validatePredicate(true, 'age %d is too %s', [7, 'low'])")
    assert re.fullmatch(r"[0-9a-f-]{36}", one(db, "apoc.create.uuid()"))
    b64 = one(db, "apoc.create.uuidBase64()")
    assert len(b64) == 22
    assert one(db, "apoc.create.uuidHexToBase64(apoc.create.uuidBase64ToHex($u))", {"u": b64}) == b64
    assert one(db, "apoc.version()") == "5.26.0"
    assert rows(db, "RETURN apoc.create.uuid() = apoc.create.uuid()") == [(False,)]


@pytest.mark.parametrize("expr, expected", [
    ("apoc.meta.cypher.type(1)", "INTEGER"), ("apoc.meta.cypher.type(1.5)", "FLOAT"),
    ("apoc.meta.cypher.type('a')", "STRING"), ("apoc.meta.cypher.type(true)", "BOOLEAN"),
    ("apoc.meta.cypher.type(null)", "NULL"), ("apoc.meta.cypher.type({a: 1})", "MAP"),
    ("apoc.meta.cypher.type(['a', 'b'])", "LIST OF STRING"), ("apoc.meta.cypher.type(['a', 1])", "LIST OF ANY"),
    ("apoc.meta.cypher.type(datetime())", "DATE_TIME"), ("apoc.meta.cypher.type(date())", "DATE"),
    ("apoc.meta.cypher.type(localdatetime())", "LOCAL_DATE_TIME"), ("apoc.meta.cypher.type(time())", "TIME"),
    ("apoc.meta.cypher.type(localtime())", "LOCAL_TIME"), ("apoc.meta.cypher.type(duration('P1D'))", "DURATION"),
    ("apoc.meta.cypher.type(point({x: 1, y: 2}))", "POINT"),
    ("apoc.meta.cypher.types({a: 1, b: 'x'})", {"a": "INTEGER", "b": "STRING"}),
    ("apoc.meta.cypher.types(1)", {}),
    ("apoc.meta.cypher.isType(datetime(), 'DATE_TIME')", True),
    ("apoc.meta.cypher.isType(1, 'NODE')", False),
])
def test_meta_type_names(db, expr, expected):
    assert one(db, expr) == expected


def test_graph_functions(db):
    rows(db, "CREATE (a:P {name: 'a', age: 1})-[:KNOWS]->(b:P {name: 'b'}), (b)-[:KNOWS]->(a), "
             "(a)-[:LIKES {w: 2}]->(c:Q), (a)-[:LIKES]->(c)")
    got = rows(db, "MATCH (a:P {name: 'a'}), (b:P {name: 'b'}), (c:Q) RETURN apoc.node.degree(a), "
                   "apoc.node.degree(a, 'KNOWS'), apoc.node.degree(a, 'KNOWS>'), apoc.node.degree(a, '<KNOWS|LIKES>'), "
                   "apoc.node.degree.in(a), apoc.node.degree.out(a), apoc.node.degree.out(a, 'LIKES'), "
                   "apoc.node.relationship.exists(a, '<LIKES'), apoc.node.relationship.exists(c, '<LIKES'), "
                   "apoc.node.relationships.exist(a, 'KNOWS>|<LIKES'), apoc.node.relationship.types(a), "
                   "apoc.nodes.connected(a, c), apoc.nodes.connected(c, b), apoc.node.labels(a), "
                   "apoc.any.properties(a), apoc.any.properties(a, ['name']), apoc.label.exists(a, 'P'), "
                   "apoc.label.exists(a, 'Q')")[0]
    assert got == (4, 2, 1, 3, 1, 3, 2, False, True, {"KNOWS>": True, "<LIKES": False}, ["KNOWS", "LIKES"],
                   True, False, ["P"], {"name": "a", "age": 1}, {"name": "a"}, True, False)
    assert rows(db, "MATCH ()-[r:LIKES {w: 2}]->() RETURN apoc.rel.type(r), apoc.label.exists(r, 'LIKES'), "
                    "apoc.any.properties(r), apoc.rel.id(r) = id(r)") == [("LIKES", True, {"w": 2}, True)]
    assert one(db, "apoc.node.degree(null)") is None


def test_aggregates(db):
    got = rows(db, "UNWIND [3, null, 1, 2, 4] AS x RETURN apoc.agg.first(x), apoc.agg.last(x), apoc.agg.nth(x, 1), "
                   "apoc.agg.nth(x, -1), apoc.agg.slice(x, 1, 2), apoc.agg.median(x), apoc.agg.product(x), "
                   "apoc.agg.percentiles(x, [0.5, 1.0])")[0]
    assert got == (3, 4, 1, 4, [1, 2], 2.5, 24, [2, 4])
    stats = rows(db, "UNWIND [0, 2, 4] AS x RETURN apoc.agg.statistics(x)")[0][0]
    assert stats["total"] == 3 and stats["min"] == 0 and stats["minNonZero"] == 2 and stats["max"] == 4
    assert stats["mean"] == 2.0 and stats["0.5"] == 2 and set(stats) >= {"0.75", "0.9", "0.95", "0.99", "stdev"}
    assert rows(db, "UNWIND [{n: 'a', v: 1}, {n: 'b', v: 3}, {n: 'c', v: 3}] AS m "
                    "RETURN apoc.agg.maxItems(m.n, m.v), apoc.agg.minItems(m.n, m.v), apoc.agg.maxItems(m.n, m.v, 1)") \
        == [({"items": ["b", "c"], "value": 3}, {"items": ["a"], "value": 1}, {"items": ["b"], "value": 3})]
    assert rows(db, "UNWIND [1, 1, 2] AS g UNWIND [g * 10, g * 10 + 1] AS x "
                    "RETURN g, apoc.agg.first(x) ORDER BY g") == [(1, 10), (2, 20)]
    assert rows(db, "UNWIND [] AS x RETURN apoc.agg.median(x), apoc.agg.first(x)") == [(None, None)]
    with pytest.raises(CypherSyntaxError):
        rows(db, "RETURN apoc.agg.first(1, 2)")


def test_functions_are_listed_with_descriptions(db):
    listed = {name: text for name, text in rows(db, "SHOW FUNCTIONS YIELD name, description")}
    for name in ("apoc.coll.sum", "apoc.map.merge", "apoc.text.format", "apoc.convert.toJson", "apoc.date.format",
                 "apoc.util.md5", "apoc.meta.cypher.type", "apoc.node.degree", "apoc.agg.median"):
        assert listed.get(name), name
    assert all(text for name, text in listed.items() if name.startswith("apoc."))


def test_large_values_are_refused(db):
    from relate.errors import ClientError
    with pytest.raises(ClientError, match="limit"):
        one(db, "apoc.text.repeat('x', 1000000000000)")
    with pytest.raises(ClientError, match="limit"):
        one(db, "apoc.coll.fill(1, 1000000000000)")
