#!/usr/bin/env bash
# Description: study plans and `stalewin study` without guests.
#  - bad plans: an unknown key, an unknown axis value or kernel, a key
#    before any section, a section twice, no section besides [global],
#    repeats 0: exit 2 naming the file and line, what was expected and
#    what was seen;
#  - plans/thread.ini: every cell listed, the ones the harness cannot run
#    yet (deferred / lang, with and without the ordering, on patched xfs
#    and btrfs) with their reason,
#    never dropped; quick.ini's runs carry their scaled writeback;
#  - a study run through a stand-in for `vm run` (synthetic runs, one
#    boot for the plan's cells): killed after its second finished run,
#    then --resume: no finished run lost or made again, the cut ones made
#    in one boot (or one a cell), every run done once; and
#    study.json's cells with n, the median's interval and regimes;
#  - verdict on that study: deferred - eager, the difference of the two
#    cells' medians (from study.json's runs) inside its interval, n 3 / 3.
. "$(dirname "$0")/../../lib/test-lib.sh"
. "$(dirname "$0")/lib.sh"
golden_start "$@"
bad() { # PATTERN plan-text: exit 2 and an error matching PATTERN
	printf '%s\n' "$2" >p.ini
	"$REP" plan p.ini >/dev/null 2>err.txt
	local rc=$?
	[ $rc -eq 2 ] && grep -qE "$1" err.txt || fail "plan '$2': expected exit 2 and /$1/, saw $rc: $(cat err.txt)"
}
bad_plans() {
	local G1=$'[global]\nrepeats = 3\n[c]\nkernel = patched:6.1\npolicy = eager\nfs = ext4'
	bad 'p.ini:6: unknown key .colour. \(expected kernel' "${G1/fs = ext4/colour = red}"
	bad "p.ini:5: policy: expected one of eager deferred lang lang-mem, saw 'lazy'" "${G1/policy = eager/policy = eager lazy}"
	bad "p.ini:7: ordering: expected one of off on, saw 'yes'" "$G1"$'\nordering = yes'
	bad "p.ini:4: kernel: expected one of stock:6.1 .*, saw 'patched:5.10'" "${G1/patched:6.1/patched:5.10}"
	bad "p.ini:2: repeats: expected a whole number 1..1000, saw '0'" "${G1/repeats = 3/repeats = 0}"
	bad "p.ini:1: expected a \[section\] before 'repeats = 3'" $'repeats = 3\n[c]\nkernel = stock:6.1'
	bad "p.ini:6: expected each section once, saw \[c\] again" $'[c]\nkernel = stock:6.1\npolicy = eager\nfs = ext4\n\n[c]'
	bad "p.ini: expected at least one section besides \[global\], saw none" $'[global]\nrepeats = 3'
	bad "p.ini:3: \[c\]: expected a 'fs' \(here or in \[global\]\), saw none" $'[global]\nrepeats = 3\n[c]\nkernel = stock:6.1\npolicy = eager'
	bad "p.ini:2: writeback: expected 'kernel' or WB_S/EXPIRE_S" $'[c]\nwriteback = fast\nkernel = stock:6.1'
}
# thread.ini: 36 cells, the 12 patched deferred/lang cells on btrfs, and
# on xfs with the ordering (ext4's), kept with their reason
thread_plan() {
	local nrun nskip
	"$REP" plan "$SRC/scripts/plans/thread.ini" >thread.txt 2>err.txt || fail "thread.ini: exit $?: $(cat err.txt)"
	nrun=$(grep -c '^run ' thread.txt) nskip=$(grep -c '^skip ' thread.txt)
	# patched: eager on 3 fs, deferred and lang on ext4 with the ordering
	# off and on and on xfs with it off (2 x 2 kernels each); stock:
	# eager on 3 fs, 2 kernels
	[ "$nrun" = 24 ] && [ "$nskip" = 12 ] || fail "thread.ini: expected 24 runnable and 12 listed not runnable, saw $nrun and $nskip"
	grep '^skip ' thread.txt | grep -v 'btrfs is not converted' | grep -qv 'ordering .* is ext4.s: on xfs' &&
		fail "thread.ini: a skip without its reason: $(grep '^skip ' thread.txt | head -3)"
	grep -q '^run patched/patched_6.1-deferred-xfs-rewrite .* --kernel patched --policy deferred --fs xfs ' thread.txt ||
		fail "thread.ini: no patched 6.1 deferred cell on xfs (0018)"
	grep -q '^skip patched/patched_7.2-lang+ordering-xfs-rewrite ' thread.txt ||
		fail "thread.ini: the xfs +ordering cells must be listed not runnable: $(grep 'xfs' thread.txt | cut -c1-80)"
	grep -q '^run stock/stock_6.1-eager-ext4-rewrite 10 .* --kernel stock --policy native --fs ext4 .* --lead 115 ' thread.txt ||
		fail "thread.ini: the stock 6.1 eager cell is not a native run at a settled lead of 115 s"
	grep '^run ' thread.txt | grep -q -- '--sysctl vm.dirty' && fail "thread.ini: a cell scales the kernel's writeback"
}
# --batches: a stock kernel's three filesystems in one boot; the patched
# kernels' cells split by filesystem (deferred and lang on ext4 only);
# every runnable cell in exactly one batch
batches() {
	"$REP" plan "$SRC/scripts/plans/thread.ini" >thread.txt
	"$REP" plan "$SRC/scripts/plans/thread.ini" --batches >b.txt 2>err.txt || fail "--batches: exit $?: $(cat err.txt)"
	[ "$(grep -c '^batch ' b.txt)" = 10 ] || fail "thread.ini: expected 10 boots (stock 6.1, 7.2 one each; patched 6.1, 7.2 three each with the ordering off, one with it on), saw $(grep -c '^batch ' b.txt)"
	grep -q '^batch 10 [0-9]* stock/stock_6.1-eager-ext4-rewrite,stock/stock_6.1-eager-xfs-rewrite,stock/stock_6.1-eager-btrfs-rewrite --kernel stock --policy native --fs ext4 --fs xfs --fs btrfs ' b.txt ||
		fail "thread.ini: stock 6.1's cells are not one boot: $(grep stock_6.1 b.txt | cut -c1-160)"
	grep -q '^batch 10 [0-9]* patched/patched_7.2-eager-ext4-rewrite,patched/patched_7.2-deferred-ext4-rewrite,patched/patched_7.2-lang-ext4-rewrite --kernel patched:7.2 --policy eager --policy deferred --policy lang --fs ext4 ' b.txt ||
		fail "thread.ini: patched 7.2 ext4's three policies are not one boot"
	diff <(awk '{ print $4 }' b.txt | tr ',' '\n' | sort) <(awk '$1 == "run" { print $2 }' thread.txt | sort) >d.txt ||
		fail "thread.ini: the batches' cells differ from the runnable cells: $(cat d.txt)"
}
# col N FILE: column N of a plan listing, the values on one line
col() { awk -v n="$1" '{ print $n }' "$2" | tr '\n' ' '; }
# the ordering axis: eager once, every other policy once per value; the
# on cells set 0008's sysctl; the sysctl is the boot's, so each value is
# a boot of its own
ordering() {
	printf '%s\n' '[o]' 'kernel = patched:6.1' 'policy = eager deferred' 'ordering = off on' 'fs = ext4' >o.ini
	"$REP" plan o.ini >o.txt 2>err.txt || fail "ordering plan: exit $?: $(cat err.txt)"
	[ "$(col 2 o.txt)" = "o/patched_6.1-eager-ext4-rewrite o/patched_6.1-deferred-ext4-rewrite o/patched_6.1-deferred+ordering-ext4-rewrite " ] ||
		fail "ordering: expected eager once and deferred with and without the ordering, saw $(col 2 o.txt)"
	[ "$(grep -c 'vm.mmap_cmtime_ordering=1' o.txt)" = 1 ] && grep -q '^run o/patched_6.1-deferred+ordering-.*--sysctl vm.mmap_cmtime_ordering=1' o.txt ||
		fail "ordering: expected the +ordering cell alone to set vm.mmap_cmtime_ordering=1"
	"$REP" plan o.ini --batches >ob.txt || fail "ordering --batches: exit $?"
	[ "$(col 4 ob.txt)" = "o/patched_6.1-eager-ext4-rewrite,o/patched_6.1-deferred-ext4-rewrite o/patched_6.1-deferred+ordering-ext4-rewrite " ] ||
		fail "ordering --batches: expected a boot for each value, saw $(col 4 ob.txt)"
}
# the query_rate axis: every cell once per rate (-qN), --query-rate given,
# a boot for each rate; a bad rate named
query_rate() {
	printf '%s\n' '[q]' 'kernel = patched:6.1' 'policy = eager deferred' 'query_rate = 1 wire' 'fs = ext4' >q.ini
	"$REP" plan q.ini >q.txt 2>err.txt || fail "query_rate plan: exit $?: $(cat err.txt)"
	[ "$(col 2 q.txt)" = "q/patched_6.1-eager-ext4-rewrite-q1 q/patched_6.1-eager-ext4-rewrite-qwire q/patched_6.1-deferred-ext4-rewrite-q1 q/patched_6.1-deferred-ext4-rewrite-qwire " ] ||
		fail "query_rate: expected each policy at 1/s and wire speed, saw $(col 2 q.txt)"
	grep -q '^run q/patched_6.1-deferred-ext4-rewrite-qwire .* --query-rate wire' q.txt || fail "query_rate: the wire cell does not ask vm run for it"
	[ "$("$REP" plan q.ini --batches | wc -l)" = 2 ] || fail "query_rate --batches: expected a boot for each rate"
	bad "p.ini:7: query_rate: expected GETATTRs a second from 1 to 1000 or wire, saw '0'" $'[global]\nrepeats = 3\n[c]\nkernel = patched:6.1\npolicy = eager\nfs = ext4\nquery_rate = 10 0'
}
# the writer's own keys: rate, size_mib, populate, writer_stat become vm
# run's --size and one word per --writer-args (the study splits a run's
# line on spaces); bad values named
writer_keys() {
	printf '%s\n' '[w]' 'kernel = stock:7.2' 'policy = eager' 'fs = ext4' 'workload = stream' 'rate = 500' \
		'size_mib = 8' 'populate = on' 'writer_stat = off' >w.ini
	"$REP" plan w.ini >w.txt 2>err.txt || fail "writer keys plan: exit $?: $(cat err.txt)"
	grep -q -- '--workload stream .* --size 8M --writer-args --rate=500 --writer-args --populate --writer-args --native-poll-only --writer-args --native-poll-ms=3600000 ' w.txt ||
		fail "writer keys: expected --size 8M and the writer's options one word each, saw $(cat w.txt)"
	printf '%s\n' '[w]' 'kernel = stock:7.2' 'policy = eager' 'fs = ext4' >w.ini
	"$REP" plan w.ini >w.txt && ! grep -q -- '--size\|--writer-args' w.txt || fail "writer keys: none given, expected no --size or --writer-args, saw $(cat w.txt)"
	local G1=$'[global]\nrepeats = 3\n[c]\nkernel = stock:7.2\npolicy = eager\nfs = ext4'
	bad "p.ini:7: writer_stat: expected one of on off, saw 'of'" "$G1"$'\nwriter_stat = of'
	bad "p.ini:7: populate: expected one value, on or off, saw 'on off'" "$G1"$'\npopulate = on off'
	bad "p.ini:7: rate: expected a whole number 0..10000, saw '20000'" "$G1"$'\nrate = 20000'
}
quick_plan() {
	"$REP" plan "$SRC/scripts/plans/quick.ini" | grep -q -- '--sysctl vm.dirty_writeback_centisecs=100 --sysctl vm.dirty_expire_centisecs=500' ||
		fail "quick.ini: its runs do not carry their scaled writeback"
}
# a study through a stand-in for vm run: its experiments (--policy x
# --repeats, interleaved), a synthetic run each, 1 s apart; the names and
# done/cut list of OUT/vm/experiments.txt as vm run writes them
fake_setup() {
	cat >fake-vm-run <<EOS
#!/usr/bin/env bash
out= pols=() reps=1
while [ \$# -gt 0 ]; do
	case \$1 in --out) out=\$2; shift 2 ;; --policy) pols+=("\$2"); shift 2 ;;
	--repeats) reps=\$2; shift 2 ;; *) shift ;; esac
done
echo "\$out" >>$T/calls
mkdir -p "\$out/vm"
names=() k=0
for ((r = 1; r <= reps; r++)); do for p in "\${pols[@]}"; do
	k=\$((k + 1)); n=\$k-\$p-ext4-kernel-r\$r
	[ \$((reps * \${#pols[@]})) -gt 1 ] || n=.
	names+=("\$n \$p ext4 rewrite \$r")
done; done
j=0
trap 'for ((i = j; i < \${#names[@]}; i++)); do echo "\${names[i]} cut" >>"\$out/vm/experiments.txt"; done; exit 3' TERM
for e in "\${names[@]}"; do
	read -r n p _ <<<"\$e"
	[ "\$p" = native ] && p=eager
	sleep 1
	"$SYN" --out "\$out/\$n" --policy "\$p" --run-id "\$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')" --kread-ms 500 --duration 20 --writeback-ms 500 --expire-ms 1500 --random --pages 16 --seed \$RANDOM >/dev/null
	echo "\$e done" >>"\$out/vm/experiments.txt"
	j=\$((j + 1))
done
EOS
	chmod +x fake-vm-run
	printf '%s\n' '[global]' 'repeats = 3' 'writeback = 1/5' 'duration_s = 20' \
		'[p]' 'kernel = patched:6.1' 'policy = eager deferred' 'fs = ext4' >s.ini
	export SW_STUDY_VM_RUN=$T/fake-vm-run SW_NO_BUILD=1 SW_BUILD_DIR=$BLD
}
study() {
	local pid rc ndone kept calls f
	fake_setup
	"$SRC/stalewin" study s.ini --out st --boot-reuse >st1.log 2>&1 &
	pid=$!
	for _ in $(seq 1 100); do
		[ "$(cat st/batches/*/vm/experiments.txt 2>/dev/null | grep -c ' done$')" -ge 2 ] && break
		sleep 0.2
	done
	kill -TERM $pid
	wait $pid
	rc=$?
	[ $rc -eq 130 ] || fail "a stopped study: expected exit 130, saw $rc: $(tail -3 st1.log)"
	ndone=$(ls st/cells/p/*/*.done | wc -l)
	[ "$ndone" -ge 2 ] && [ "$ndone" -lt 6 ] || fail "expected the study stopped after 2-5 finished runs, saw $ndone"
	stat -c '%n %i %Y' st/cells/p/*/run-*/writer.swlog | sort >before.txt
	kept=$(for f in st/cells/p/*/*.done; do echo "${f%.done}/writer.swlog"; done | sort)
	"$SRC/stalewin" study s.ini --out st >st2.log 2>&1 && fail "a study run twice into one folder without --resume: expected a refusal"
	"$SRC/stalewin" study s.ini --out st --resume >st2.log 2>&1 || fail "--resume: exit $?: $(tail -3 st2.log)"
	[ "$(ls st/cells/p/*/*.done | wc -l)" = 6 ] || fail "--resume: expected 6 finished runs, saw $(ls st/cells/p/*/*.done | wc -l)"
	for f in $kept; do
		grep -qF "$(stat -c '%n %i %Y' "$f")" before.txt || fail "--resume: a finished run was made again: $f"
	done
	# one boot for the six runs, then the cut ones: one boot, or one per
	# cell when the two cells miss different runs
	calls=$(wc -l <"$T/calls")
	[ "$calls" -ge 2 ] && [ "$calls" -le 3 ] || fail "expected the study in 1 boot and --resume in 1 or 2, saw $calls boots: $(cat "$T/calls")"
	made=$(cat st/batches/*/vm/experiments.txt | grep -c ' done$')
	[ "$made" = 6 ] || fail "expected 6 runs made whole once each (none made again), saw $made: $(cat st/batches/*/vm/experiments.txt)"
	[ "$(sort -u "$T/calls" | wc -l)" = "$calls" ] || fail "a boot's folder was used twice"
	jq -e '.cells | length == 2 and all(.n == 3) and all(.truth_p50_s.ci_coverage == 0.75) and
		all(.writeback.scaled) and all(.truth_p50_s.regimes.count == 1)' st/study.json >/dev/null ||
		fail "study.json: expected 2 cells of 3 runs (coverage 0.75, scaled), saw: $(jq -c '.cells[] | [.id, .n, .truth_p50_s.ci_coverage]' st/study.json)"
	grep -q "truth p50" st2.log || fail "the study's text: no truth p50 line"
	# and the SQLite archive of its runs (a header line, then a run a line)
	[ "$("$REP" archive list --db st/study.sqlite 2>/dev/null | tail -n +2 | grep -c .)" = 6 ] ||
		fail "study.sqlite: expected the 6 runs archived, saw: $("$REP" archive list --db st/study.sqlite 2>&1 | tail -n +2)"
	# verdict: deferred against eager, the difference of the medians of
	# the runs study.json lists
	"$SRC/stalewin" verdict st --json >v.json 2>err.txt || fail "verdict: exit $?: $(cat err.txt)"
	want=$(jq '[.cells[] | {p: .policy, m: ([.runs[].truth_p50_s] | sort | .[(length - 1) / 2 | floor])}] |
		(map(select(.p == "deferred"))[0].m - map(select(.p == "eager"))[0].m)' st/study.json)
	jq -e --argjson w "$want" '.comparisons | length == 1 and .[0].policy == "deferred" and
		.[0].truth_p50_s.n == 3 and .[0].truth_p50_s.n_eager == 3 and
		((.[0].truth_p50_s.median_diff - $w) | fabs) < 1e-6 and
		.[0].truth_p50_s.ci_lo <= .[0].truth_p50_s.median_diff and
		.[0].truth_p50_s.median_diff <= .[0].truth_p50_s.ci_hi and .[0].writeback.scaled' v.json >/dev/null ||
		fail "verdict: expected deferred - eager = $want s within its interval, n 3 / 3, scaled; saw $(jq -c '.comparisons' v.json)"
	"$SRC/stalewin" verdict st | grep -q "deferred - eager (scaled)" || fail "verdict text: no 'deferred - eager (scaled)' line"
	# correctness: each count the sum over the cell's runs in study.json
	for k in stores truth_unresolved race_stores race_read_hits; do
		want=$(jq --arg k "$k" '[.cells[] | {p: .policy, s: ([.runs[][$k]] | add)}] |
			{policy: map(select(.p == "deferred"))[0].s, eager: map(select(.p == "eager"))[0].s}' st/study.json)
		jq -e --arg k "$k" --argjson w "$want" '(.comparisons[0].correctness[$k] == $w) and ($w.eager > 0 or $k != "stores")' v.json >/dev/null ||
			fail "verdict: correctness $k: expected $(echo $want | tr -d ' \n') (study.json's runs summed), saw $(jq -c --arg k "$k" '.comparisons[0].correctness[$k]' v.json)"
	done
	"$SRC/stalewin" verdict st | grep -Eq "never visible +[0-9]+ of [0-9]+ stores against" || fail "verdict text: no 'never visible' line"
	# each kernel reader's view by NFS version and mode: the difference of
	# the medians of its runs' "view:v3 cto" (synth: a cto reader)
	want=$(jq '[.cells[] | {p: .policy, m: ([.runs[]["view:v3 cto"]] | sort | .[(length - 1) / 2 | floor])}] |
		(map(select(.p == "deferred"))[0].m - map(select(.p == "eager"))[0].m)' st/study.json)
	jq -e --argjson w "$want" '.comparisons[0].views["v3 cto"] | .n == 3 and ((.median_diff - $w) | fabs) < 1e-6' v.json >/dev/null ||
		fail "verdict: expected the v3 cto reader's difference $want s, n 3; saw $(jq -c '.comparisons[0].views' v.json)"
	study_mail
	jq -e '.boot_reuse == true' st/study.json >/dev/null && "$SRC/stalewin" verdict st | grep -q '^runs shared boots' ||
		fail "a --boot-reuse study: expected boot_reuse true and the verdict saying so"
	"$SRC/stalewin" verdict "$T" >/dev/null 2>err.txt
	[ $? -eq 2 ] && grep -q "expected a study.json" err.txt || fail "verdict without a study: expected exit 2, saw: $(cat err.txt)"
}
# the mail of a study: refused as a sketch (emulated, scaled, 3 runs a
# cell); with --sketch led by a TL;DR of at most 12 lines and the
# verdict, the cells' intervals, the plan, the study's commands by the
# folder's name (no absolute path), and clean for mail --check
study_mail() {
	local tl
	"$SRC/stalewin" mail st --no-plots >m.txt 2>err.txt
	[ $? -eq 2 ] && grep -q 'a sketch, not evidence to post: .*scaled' err.txt ||
		fail "mail of a scaled 3-run study: expected exit 2 naming scaled writeback, saw: $(cat err.txt)"
	"$SRC/stalewin" mail st --no-plots --sketch --date 'Sun, 06 Dec 2026 12:00:00 +0000' --from t@example.org >m.txt 2>err.txt ||
		fail "mail --sketch of a study: exit $?: $(cat err.txt)"
	# (texts into variables: under pipefail a grep -q ending a pipe can
	# fail it by the SIGPIPE of the commands before it)
	local subj tldr
	subj=$(sed -n '/^Subject:/,/^Date:/p' m.txt | tr -d '\n')
	[[ $subj == "Subject: [sketch] [stalewin] "*"study st, 6 runs"* ]] ||
		fail "study mail: no sketch subject naming the study: $subj"
	tl=$(sed -n '/^TL;DR$/,/^$/p' m.txt | sed '1d;$d' | wc -l)
	[ "$tl" -ge 1 ] && [ "$tl" -le 12 ] || fail "study mail: expected a TL;DR of 1..12 lines, saw $tl"
	tldr=$(sed -n '/^TL;DR$/,/^$/p' m.txt | tr '\n' ' ' | tr -s ' ')
	[[ $tldr =~ "deferred minus eager (n 3 / 3): truth p50 +"[0-9] ]] ||
		fail "study mail: the TL;DR does not give deferred against eager with its n: $tldr"
	grep -q '^Verdict$' m.txt && grep -q '95% CI .* (covers 75%)' m.txt && grep -q '^The plan (st/plan.ini)$' m.txt ||
		fail "study mail: expected Verdict, the cells' intervals and the plan"
	grep -q '^  ./stalewin study st/plan.ini --out st-again$' m.txt || fail "study mail: no study command by the folder's name"
	grep -q "$T" m.txt && fail "study mail: an absolute path of this machine: $(grep -n "$T" m.txt | head -2)"
	"$REP" mail --check m.txt >/dev/null 2>err.txt || fail "study mail: mail --check: $(cat err.txt)"
}
# by default every run boots its own guests (runs after the first of a
# boot drew another writeback regime): six boots of one experiment
own_boots() {
	fake_setup
	: >"$T/calls"
	"$SRC/stalewin" study s.ini --out own >own.log 2>&1 || fail "study: exit $?: $(tail -3 own.log)"
	[ "$(wc -l <"$T/calls")" = 6 ] || fail "expected 6 boots for 6 runs, saw $(wc -l <"$T/calls")"
	# interleaved: eager's run 1, deferred's run 1, eager's run 2, ...
	local order
	order=$(for b in own/batches/b{0..5}; do awk '{ print $2 "-" $5 }' "$b/vm/experiments.txt"; done | tr '\n' ' ')
	[ "$order" = "eager-1 deferred-1 eager-1 deferred-1 eager-1 deferred-1 " ] ||
		fail "expected the cells' runs interleaved, saw $order"
	[ "$(cat own/batches/*/vm/experiments.txt | wc -l)" = 6 ] || fail "expected one experiment a boot"
	jq -e '.boot_reuse == false and (.cells | all(.n == 3))' own/study.json >/dev/null ||
		fail "expected boot_reuse false and 3 runs a cell: $(jq -c '[.boot_reuse, [.cells[].n]]' own/study.json)"
}
# the fault axis: each cell once per value (-f<spec>, ':' as '_'), vm
# run's --fault given; a fault a cell cannot take is a skip with its
# reason; a fault that allows one experiment a boot is a batch1 of one
# cell, and a --boot-reuse study then boots once per run
faults() {
	printf '%s\n' '[global]' 'duration_s = 20' '[f]' 'kernel = stock:6.1 patched:6.1' 'policy = eager' \
		'fs = ext4 tmpfs' 'fault = none memory-pressure@4:3 enospc@4' >f.ini
	"$REP" plan f.ini >f.txt 2>err.txt || fail "fault plan: exit $?: $(cat err.txt)"
	[ "$(col 2 f.txt | tr ' ' '\n' | grep -c -- '-f')" = 8 ] || fail "fault: expected 8 cells with a fault, saw $(col 2 f.txt)"
	grep -q '^run f/stock_6.1-eager-ext4-rewrite-fmemory-pressure@4_3 .* --fault memory-pressure@4:3 ' f.txt ||
		fail "fault: the stock ext4 memory-pressure cell does not ask vm run for it: $(grep memory f.txt)"
	grep -q '^skip f/patched_6.1-eager-ext4-rewrite-fmemory-pressure@4_3 .*no memcg' f.txt ||
		fail "fault: memory-pressure on the patched kernel is not a skip naming its memcg"
	grep -q '^skip f/stock_6.1-eager-tmpfs-rewrite-fenospc@4 .*not tmpfs' f.txt ||
		fail "fault: enospc on tmpfs is not a skip naming the disk it needs"
	"$REP" plan f.ini --batches >fb.txt || fail "fault --batches: exit $?"
	[ "$(grep -c '^batch1 ' fb.txt)" = 2 ] && grep -q '^batch1 10 [0-9]* f/stock_6.1-eager-ext4-rewrite-fenospc@4 .*--fault enospc@4' fb.txt ||
		fail "fault --batches: expected the two enospc cells each a batch1 of its own, saw $(cut -d' ' -f1-4 fb.txt)"
	bad "p.ini:5: fault: expected none or a vm run fault" $'[global]\nrepeats = 3\n[c]\nkernel = stock:6.1\nfault = enospc@1:2\npolicy = eager\nfs = ext4'
	bad "p.ini:5: fault: expected none or a vm run fault" $'[global]\nrepeats = 3\n[c]\nkernel = stock:6.1\nfault = ganesha-restart@1:2\npolicy = eager\nfs = ext4'
	bad "p.ini:3: \[c\]: fault memory-pressure@30:1: expected a time before the run's end \(S < duration_s 20\), saw S = 30" \
		$'[global]\nduration_s = 20\n[c]\nkernel = stock:6.1\nfault = memory-pressure@30:1\npolicy = eager\nfs = ext4'
	# --boot-reuse and a batch1: one experiment a boot all the same
	fake_setup
	printf '%s\n' 'fault = enospc@5' >>s.ini
	: >"$T/calls"
	"$SRC/stalewin" study s.ini --boot-reuse --out fst >fst.log 2>&1 || fail "fault study: exit $?: $(tail -3 fst.log)"
	[ "$(wc -l <"$T/calls")" = 6 ] && [ "$(cat fst/batches/*/vm/experiments.txt | wc -l)" = 6 ] ||
		fail "fault study: expected 6 boots of one experiment, saw $(wc -l <"$T/calls") boots: $(cat fst/batches/*/vm/experiments.txt)"
	: >"$T/calls" # (the cases after count their own)
	# the verdict: a crash cell's counts as a finding, and a faulted cell
	# never compared with a fault-free eager one
	mkdir -p cv
	cat >cv/study.json <<'EOJ'
{"cells": [
 {"id": "g/patched_6.1-eager-ext4-rewrite", "kernel": "patched:6.1", "policy": "eager", "fs": "ext4",
  "workload": "rewrite", "query_rate": null, "fault": null, "n": 3, "writeback": {"scaled": false}},
 {"id": "g/patched_6.1-deferred-ext4-rewrite-fserver-crash@4_5", "kernel": "patched:6.1",
  "policy": "deferred", "fs": "ext4", "workload": "rewrite", "query_rate": null,
  "fault": "server-crash@4:5", "n": 3, "writeback": {"scaled": false},
  "crash": {"runs": 3, "before": 251, "on_disk": 251, "never_read": 251, "probe_base": 250, "probe_never": 250}}]}
EOJ
	"$REP" verdict cv >cv.txt 2>err.txt || true
	grep -q '^  g/patched_6.1-deferred-ext4-rewrite-fserver-crash@4_5: 251 of 251 never seen (3 runs)$' cv.txt ||
		fail "verdict: expected the crash cell's finding, saw: $(cat cv.txt err.txt)"
	grep -q '^no comparison' cv.txt || fail "verdict: a faulted cell was compared with a fault-free eager one: $(cat cv.txt)"
	# two crashed cells of one kernel: the comparison carries the crash
	# counts, each run's beside the sums, into the text, JSON and TL;DR
	mkdir -p cc
	cat >cc/study.json <<'EOJ'
{"cells": [
 {"id": "g/e", "kernel": "patched:6.1", "policy": "eager", "fs": "ext4", "workload": "rewrite",
  "query_rate": null, "fault": "server-crash@4:5", "n": 2, "writeback": {"scaled": false},
  "crash": {"runs": 2, "before": 122, "on_disk": 122, "never_read": 113, "probe_base": 0, "probe_never": 0},
  "runs": [{"stores": 60, "crash_on_disk": 60, "crash_never_read": 55, "truth_p50_s": null},
           {"stores": 62, "crash_on_disk": 62, "crash_never_read": 58, "truth_p50_s": null}]},
 {"id": "g/d", "kernel": "patched:6.1", "policy": "deferred", "fs": "ext4", "workload": "rewrite",
  "query_rate": null, "fault": "server-crash@4:5", "n": 2, "writeback": {"scaled": false},
  "crash": {"runs": 2, "before": 121, "on_disk": 121, "never_read": 121, "probe_base": 0, "probe_never": 0},
  "runs": [{"stores": 60, "crash_on_disk": 60, "crash_never_read": 60, "truth_p50_s": 0.5},
           {"stores": 61, "crash_on_disk": 61, "crash_never_read": 61, "truth_p50_s": 0.6}]}]}
EOJ
	"$REP" verdict cc >cc.txt 2>err.txt || true
	grep -q '^    after crash     121 of 121 stores on disk never read as changed against 113 of 122$' cc.txt &&
		grep -q '(each run: 60/60 61/61; eager.s: 55/60 58/62)$' cc.txt ||
		fail "verdict: expected the crash rows of deferred against eager, saw: $(cat cc.txt err.txt)"
	grep -q '^  g/d: 121 of 121 never seen (2 runs: 60/60 61/61)$' cc.txt ||
		fail "verdict: expected the crash cell's runs each, saw: $(cat cc.txt)"
	# eager's truth >end in every run: an unbounded difference, said so
	grep -q '^    truth p50          -inf  95% CI -inf..-inf  (n 2 / 2)$' cc.txt &&
		grep -q "^-inf, +inf: eager's, the policy's median (or interval end) was >end,$" cc.txt ||
		fail "verdict: expected the unbounded truth difference and its footnote, saw: $(cat cc.txt)"
	"$REP" verdict --json cc >cc.json 2>err.txt || true
	[ "$(jq -c '.comparisons[0].correctness.crash_never_read | [.policy, .policy_on_disk, .eager, .eager_on_disk]' cc.json)" = "[121,121,113,122]" ] ||
		fail "verdict --json: expected the crash counts in the comparison, saw: $(jq -c '.comparisons[0].correctness' cc.json 2>&1)"
}
sw_case bad-plans bad_plans
sw_case thread-plan thread_plan
sw_case batches batches
sw_case ordering ordering
sw_case query-rate query_rate
sw_case faults faults
sw_case writer-keys writer_keys
sw_case quick-plan quick_plan
sw_case study study
sw_case own-boots own_boots
sw_done "bad plans, thread.ini cells, stop and --resume, study.json, verdict"
