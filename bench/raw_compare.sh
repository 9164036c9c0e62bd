# raw_compare.sh -- sourced by the bench scripts that compare a match with
# raw ZeroMQ round trips of the same size (bench_callgrind.sh,
# bench_syscalls.sh): the programs they run, and the request size.
#
# bench_programs NAME: from $build, $refbuild (empty: $build) and
# $protocol (1, 2 or 3), set ref, bot (maat-random), pp (bench-pingpong),
# spy and botargs (the bots' arguments for that protocol version), and
# exit with a message naming NAME if one is missing.
bench_programs() {
    ref="${refbuild:-$build}/referee/maat-referee"
    bot="${refbuild:-$build}/sample-bots/maat-random"
    pp="$build/bench/bench-pingpong"
    spy="$build/tests/maat-spy-bot"
    case $protocol in
        1) botargs=" --full-observation" ;;
        2) botargs=" --protocol 2" ;;
        3) botargs="" ;;
        *) echo "$1: --protocol 1, 2 or 3" >&2; exit 2 ;;
    esac
    local p
    for p in "$ref" "$bot" "$pp" "$spy"; do
        [ -x "$p" ] || { echo "$1: no $p (ninja -C $build)" >&2; exit 1; }
    done
}

#
# spy_request_bytes REF SPY SEATS VERSION DIR: play 20 games between SEATS
# spy bots (tests/bots/spy.c) speaking protocol VERSION, their files in
# DIR, and print the mean size in bytes of the requests they received.
spy_request_bytes() {
    local ref=$1 spy=$2 seats=$3 version=$4 dir=$5 i args=()
    mkdir -p "$dir"
    for ((i = 0; i < seats; i++)); do
        args+=(--bot "s$i=$spy --dir $dir --seed 1 --version $version")
    done
    "$ref" --quiet --no-sandbox --games 20 --seed 1 "${args[@]}"
    python3 - "$dir" <<'PY'
import glob, struct, sys
n = total = 0
for path in glob.glob(sys.argv[1] + '/*.bin'):
    b = open(path, 'rb').read()
    at = 0
    while at + 4 <= len(b):
        (size,) = struct.unpack_from('<I', b, at)
        msg = b[at + 4:at + 4 + size]
        at += 4 + size
        if b'\xa4type\xa7request' in msg:
            n += 1
            total += size
print(round(total / n) if n else 0)
PY
}
