# ci-checks.sh -- the checks of the CI formats by their consumers' own
# checkers, sourced by tests/tb-compare-ci.test and tests/tb-fit-ci.test
# after tap.sh: JUnit XML by xmllint against the xUnit plugin's schema,
# KCIDB by its published JSON schema (python3-jsonschema), TAP by Perl's
# TAP::Parser and by node-tap's parser, which reads TAP 14, LAVA's calls
# by LAVA's own lava-test-case, SQUAD's metrics by the rules of SQUAD's
# parser (no SQUAD here).
# SPDX-License-Identifier: GPL-3.0-or-later
# The schemas are other projects' (the xUnit plugin's junit-10.xsd, KCIDB's
# v5.3 JSON schema), not tbkit's: TB_SCHEMAS names a folder holding them
# (default: shared/schemas beside the checkout).  Without them the output
# is checked to be well-formed XML or JSON only, and the test says so.
schemas=${TB_SCHEMAS:-$top_srcdir/../shared/schemas}
have() { command -v "$1" >/dev/null 2>&1; }
check_junit() {   # FILE WHAT (ok's eval has its own $1: the file as $f)
    f=$1
    if have xmllint && [ -r "$schemas/junit-10.xsd" ]; then
        ok 'xmllint --noout --schema "$schemas/junit-10.xsd" "$f" 2>/dev/null' "junit: $2 valid against junit-10.xsd"
    elif have xmllint; then
        ok 'xmllint --noout "$f" 2>/dev/null' "junit: $2 well-formed (no junit-10.xsd in $schemas: TB_SCHEMAS)"
    else
        skip "junit: no xmllint (libxml2-utils) to check $2"
    fi
}
check_kcidb() {   # FILE WHAT
    f=$1
    if python3 -c 'import jsonschema' 2>/dev/null && [ -r "$schemas/kcidb-v5.3.schema.json" ]; then
        ok 'python3 -c "import json, jsonschema, sys
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))" \
            "$schemas/kcidb-v5.3.schema.json" "$f"' "kcidb: $2 valid against the KCIDB v5.3 schema"
    else
        ok 'python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$f"' \
           "kcidb: $2 well-formed JSON (no python3-jsonschema or KCIDB schema in $schemas: TB_SCHEMAS)"
    fi
}
check_tap() {   # FILE TESTS FAILED WHAT: TAP::Parser's count of tests and failures
    f=$1 want_tests=$2 want_failed=$3
    if have prove; then
        prove --exec cat "$f" >"$f.prove" 2>&1
        if [ "$want_failed" = 0 ]; then
            ok 'grep -q "^Files=1, Tests=$want_tests," "$f.prove" && grep -q "^Result: PASS" "$f.prove"' \
               "tap: TAP::Parser reads $4: $2 tests, all ok"
        else
            ok 'grep -q "Tests: $want_tests Failed: $want_failed)" "$f.prove" && ! grep -qi "parse error" "$f.prove"' \
               "tap: TAP::Parser reads $4: $2 tests, $3 not ok, no parse error"
        fi
    else
        skip "tap: no prove (perl) to check $4"
    fi
    check_tap14 "$@"
}
# node-tap's parser (Debian's node-tap-parser), which reads TAP 14 as
# Perl's reads 13, strict: the same counts, no line it does not know,
# each test's YAML block read
check_tap14() {   # FILE TESTS FAILED WHAT
    f=$1 want_tests=$2 want_failed=$3
    if ! NODE_PATH=/usr/share/nodejs tap-parser -s </dev/null >/dev/null 2>&1; then
        skip "tap: no node-tap-parser (a TAP 14 parser) to check $4"
        return
    fi
    NODE_PATH=/usr/share/nodejs tap-parser --strict -j 0 <"$f" >"$f.tap14" 2>&1
    ok 'python3 -c "import json, sys
ev = json.load(open(sys.argv[1]))
done = [e[1] for e in ev if e[0] == \"complete\"][0]
assert done[\"count\"] == int(sys.argv[2]) and done[\"fail\"] == int(sys.argv[3]), done
assert not [e for e in ev if e[0] == \"extra\"] and not [x for x in done[\"failures\"] if \"tapError\" in x], done
asserts = [e[1] for e in ev if e[0] == \"assert\"]
assert asserts and all(isinstance(a.get(\"diag\"), dict) for a in asserts)" "$f.tap14" "$want_tests" "$want_failed"' \
       "tap: node-tap's parser (TAP 14, strict) reads $4: $2 tests, $3 not ok, each with its YAML"
}
check_squad() {   # FILE WHAT: SQUAD's metrics file, read as SQUAD's parser reads it
    f=$1
    ok 'python3 -c "import json, math, sys
d = json.load(open(sys.argv[1]))
assert isinstance(d, dict) and d
for key, v in d.items():
    suite, name = key.rsplit(\"/\", 1)   # SQUAD splits a name at its last /
    assert suite and name and \"[\" not in key and isinstance(v, dict), key
    assert set(v) <= {\"value\", \"unit\"} and math.isfinite(float(v[\"value\"])), key" "$f"' \
       "squad: $2 a metrics file SQUAD reads (suite/name: {value, unit}; no SQUAD here to submit to)"
}
# LAVA's own helper (Debian's lava-dispatcher; .ci/run extracts it and
# TB_LAVA_HELPERS names where): lava_run SCRIPT DIR runs SCRIPT with it,
# the results in DIR/results; false when the helper is not here.
lava_helpers=${TB_LAVA_HELPERS:-/usr/lib/python3/dist-packages/lava_dispatcher/lava_test_shell}
have_lava() { [ -r "$lava_helpers/lava-test-case" ] && [ -r "$lava_helpers/lava-common-functions" ]; }
lava_run() {
    mkdir -p "$tmp/lava-bin"
    cp "$lava_helpers/lava-test-case" "$lava_helpers/lava-common-functions" "$tmp/lava-bin/"
    chmod +x "$tmp/lava-bin/lava-test-case"
    PATH="$tmp/lava-bin:$PATH" LAVA_RESULT_DIR="$2" sh "$1"
}
