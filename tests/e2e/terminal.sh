# terminal.sh: text from outside reaches a terminal or a generated file
# escaped (issue 38, findings 6 and 8).  A real two-second run; then its
# label, reason and an assertion's message in the database are made to
# carry ESC sequences, a carriage return and a newline (what a crafted
# database brought in by `devnet import` holds): `devnet runs` and
# `devnet show` print them as \xHH, never the raw bytes.  And a scenario
# whose `name:` holds a newline and a service of its own: the Compose file
# of `devnet validate --provider swarm` keeps it inside its comment.
. "$(dirname "$0")/lib.sh"

{ scn_head terminal 2s; cat <<'YAML'
warmup: 500ms
variants:
  A: {}
repeats: 1
YAML
} >"$T/t.yaml"
"$DEVNET" run "$T/t.yaml" --db "$DB" --run-dir "$RUNS" --quiet \
    --label plain >"$T/run.out" 2>&1
expect_eq "the run exits 0" "$?" 0

# ESC ] 0 ; title BEL, ESC [ 2 J (clear), CSI as C1 (\xc2\x9b), CR
python3 - "$DB" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
evil = "x\x1b]0;owned\x07\x1b[2J\u009b31m\rfake"
db.execute("update runs set label = ?, reason = ? where id = 1",
    (evil, evil + "\nverdict            FORGED"))
db.execute("insert into assertions (run_id, name, form, status, message)"
    " values (1, ?, 'always', 'fail', ?)", (evil, evil))
db.commit()
PY
expect_eq "the database holds the raw ESC" \
    "$(q "select instr(label, char(27)) > 0 from runs where id = 1")" 1

"$DEVNET" runs --db "$DB" >"$T/runs.out" 2>&1
expect_eq "devnet runs exits 0" "$?" 0
"$DEVNET" show 1 --db "$DB" >"$T/show.out" 2>&1
expect_eq "devnet show exits 0" "$?" 0
for f in runs show; do
	n=$(tr -cd '\033\007\r' <"$T/$f.out" | wc -c)
	expect_eq "devnet $f prints no ESC, BEL or CR" "$n" 0
	n=$(grep -c $'\xc2\x9b' "$T/$f.out")
	expect_eq "devnet $f prints no C1 CSI" "$n" 0
	expect_match "devnet $f shows the label escaped" "$(cat "$T/$f.out")" \
	    'x\\x1b\]0;owned\\x07\\x1b\[2J\\xc2\\x9b31m\\x0dfake'
done
expect_match "show keeps a reason on its line" "$(cat "$T/show.out")" \
    'fake\\x0averdict +FORGED'
expect_eq "no forged line" "$(grep -c '^verdict *FORGED' "$T/show.out")" 0
# the formats for machines keep the stored text (JSON escapes it)
j=$("$DEVNET" runs --db "$DB" --format json)
expect_match "runs --format json: the label as JSON escapes" "$j" \
    'x\\u001b]0;owned\\u0007'

# finding 8: a newline in the scenario's name
cat >"$T/inj.yaml" <<'YAML'
name: "inj\nservices:\n  evil:\n    image: alpine\n#"
duration: 2s
network:
  nodes: 2
workload:
  kind: transfer
  tps: 10
variants:
  A: {}
YAML
out=$("$DEVNET" validate "$T/inj.yaml" --provider swarm \
    --set network.listen=tcp --set network.tcp_base_port=27000 2>&1)
expect_eq "validate --provider swarm exits 0" "$?" 0
expect_match "the name stays in the comment" "$out" \
    "^# devnet: the stack of one trial of 'inj\\\\x0aservices:\\\\x0a  evil:"
printf '%s\n' "$out" | sed -n '/^# devnet: the stack/,$p' >"$T/compose.yml"
expect_eq "no service 'evil' in the Compose file" \
    "$(grep -c '^  evil:' "$T/compose.yml")" 0
python3 - "$T/compose.yml" <<'PY' >"$T/services.out" 2>&1
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]).read().split("\ncompose file")[0])
print(sorted(d["services"]))
PY
expect_eq "the Compose file parses to the nodes' services only" \
    "$(cat "$T/services.out")" "['n0', 'n1']"
finish
