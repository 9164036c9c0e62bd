#!/usr/bin/env python3
"""test_games.py -- every registered game end to end through the real
referee and ladder (the seam every game shares).

The games come from maat-list-games (tests/list_games.c: the registry,
maat_rules_all), so a game added to the registry is played here with no
other change.  For each game and each seat count it allows, one match of
the C sample bots (maat-random, maat-greedy, maat-mcts --iterations 30 in
turn), the smallest and largest seat counts as 2-game series (the seats
rotate).  For every match the referee exits 0; for every game record:
the game's name and rules version, no fault, nobody out, every decision
made by the bot itself and of a decision kind the welcome names, the
score parts (the game's own names) summing to the score, game ranks
shared by ties and match ranks from them, and `maat-referee --verify`
replays it (exit 0).  No bot log reports a failed sample (maat_bot_sample).
The ladder file has one line per game; `maat-ladder standings` reads it
(table, json, csv) and, per game, `--game G --format json` counts every
bot's games.

Clocks are generous (--time 10000) so a loaded machine does not turn into
faults.  Environment: MAAT_REFEREE, MAAT_LADDER, MAAT_RANDOM, MAAT_GREEDY,
MAAT_MCTS, MAAT_LIST_GAMES (set by tests/meson.build).
"""
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from maattest import check, report  # noqa: E402

ENV = {k: os.environ.get('MAAT_' + k.upper())
       for k in ('referee', 'ladder', 'random', 'greedy', 'mcts',
                 'list_games')}


def registered_games():
    """[(name, min_seats, max_seats, rules_version, [score parts])]"""
    out = subprocess.run([ENV['list_games']], stdout=subprocess.PIPE,
                         universal_newlines=True, check=True).stdout
    games = []
    for line in out.splitlines():
        w = line.split()
        games.append((w[0], int(w[1]), int(w[2]), w[3], w[4:]))
    return games


def run(cmd, timeout):
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=timeout,
                              universal_newlines=True)
    except subprocess.TimeoutExpired:
        return None


def check_record(what, path, game, seats, names):
    name, _, _, version, parts = game
    with open(path) as f:
        record = json.load(f)
    check(record['game'] == name and record['rules_version'] == version,
          '%s: game and rules version' % what,
          '%s %s' % (record['game'], record['rules_version']))
    check(record['faults'] == [], '%s: no fault' % what, record['faults'][:5])
    res = record['result']
    check(len(res) == seats and not any(x['out'] for x in res),
          '%s: every seat finished' % what, res)
    check(sorted(x['bot'] for x in res) == sorted(names),
          '%s: the result names the bots' % what, [x['bot'] for x in res])
    decisions = record['decisions']
    check(len(decisions) > 0 and all(d['by'] == 'bot' for d in decisions),
          '%s: %d decisions, every one by the bot' % (what, len(decisions)),
          [d for d in decisions if d['by'] != 'bot'][:3])
    check(all(d['action'].get('kind') == d['kind'] for d in decisions),
          '%s: each action answers its decision kind' % what)
    check({d['seat'] for d in decisions} == set(range(seats)),
          '%s: every seat decided' % what)
    for x in res:
        check(sorted(x['parts']) == sorted(parts) and
              sum(x['parts'].values()) == x['score'],
              '%s: seat %d parts sum to its score' % (what, x['seat']),
              '%s %d' % (x['parts'], x['score']))
    # game ranks share places on ties of the rules' order; match ranks
    # (nobody out) are the game ranks
    for x in res:
        check(1 <= x['game_rank'] <= seats and x['rank'] == x['game_rank'],
              '%s: seat %d ranks' % (what, x['seat']),
              '%d %d' % (x['game_rank'], x['rank']))
    v = run([ENV['referee'], '--verify', path], 120)
    check(v is not None and v.returncode == 0,
          '%s: --verify replays it' % what, v.stdout if v else 'timeout')


def play(tmp, ladder, game, seats, series, games_of, counter):
    name = game[0]
    kinds = ['random', 'greedy', 'mcts']
    commands = {'random': ENV['random'], 'greedy': ENV['greedy'],
                'mcts': ENV['mcts'] + ' --iterations 30'}
    bots = [kinds[(seats + i) % 3] for i in range(seats)]
    names = ['%s%d' % (b, i) for i, b in enumerate(bots)]
    seed = 4000 + 10 * seats + len(name)
    tag = '%s %d seats (%s, %d game%s)' % (name, seats, '/'.join(bots),
                                          series, 's' * (series > 1))
    rec = os.path.join(tmp, '%s-%d.json' % (name, seats))
    logs = os.path.join(tmp, 'logs-%s-%d' % (name, seats))
    cmd = [ENV['referee'], '--game', name, '--seed', str(seed),
           '--games', str(series), '--record', rec, '--ladder', ladder,
           '--time', '10000', '--first-time', '10000',
           '--hello-time', '60000', '--log-dir', logs, '--quiet']
    for n, b in zip(names, bots):
        cmd += ['--bot', '%s=%s' % (n, commands[b])]
    t0 = time.monotonic()
    r = run(cmd, 400)
    if not check(r is not None and r.returncode == 0,
                 '%s: the referee exits 0' % tag,
                 r.stdout if r else 'no end in 400 s'):
        return
    paths = [rec] if series == 1 else sorted(glob.glob(
        os.path.join(tmp, '%s-%d-*.json' % (name, seats))))
    check(len(paths) == series, '%s: %d records' % (tag, series), paths)
    for path in paths:
        check_record('%s %s' % (tag, os.path.basename(path)), path, game,
                     seats, names)
        counter[name] = counter.get(name, 0) + 1
        for n in names:
            games_of.setdefault(name, {})
            games_of[name][n] = games_of[name].get(n, 0) + 1
    bad = []
    for log in sorted(glob.glob(os.path.join(logs, '*'))):
        with open(log, errors='replace') as f:
            if 'maat_bot_sample' in f.read():
                bad.append(os.path.basename(log))
    check(not bad, '%s: no bot failed to sample a state' % tag, bad)
    print('     %s: %.1f s' % (tag, time.monotonic() - t0), flush=True)


def standings(ladder, games, games_of, counter):
    lines = []
    if check(os.path.exists(ladder), 'a ladder file'):
        with open(ladder) as f:
            lines = [json.loads(x) for x in f if x.strip()]
    check(len(lines) == sum(counter.values()),
          '%d ladder lines, one per game' % sum(counter.values()),
          len(lines))
    versions = {g[0]: g[3] for g in games}
    check(all(x['rules_version'] == versions.get(x['game']) and
              x['faults'] == [] for x in lines),
          'every ladder line is a clean game of its rules version')
    for fmt in ('table', 'json', 'csv'):
        r = run([ENV['ladder'], 'standings', ladder, '--format', fmt], 120)
        check(r is not None and r.returncode == 0 and
              all(b in r.stdout for g in games_of.values() for b in g),
              'standings --format %s lists every bot' % fmt,
              r.stdout if r else 'timeout')
    for name, want in games_of.items():
        r = subprocess.run([ENV['ladder'], 'standings', ladder, '--game',
                            name, '--format', 'json'],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=120, universal_newlines=True)
        if check(r.returncode == 0, 'standings --game %s' % name, r.stderr):
            rows = json.loads(r.stdout)
            got = {x['bot']: x['games'] for x in rows}
            check(got == want and all(x['game'] == name for x in rows),
                  'standings --game %s counts every bot\'s games' % name,
                  '%s, want %s' % (got, want))


def main():
    missing = [k for k, v in ENV.items() if not v]
    if missing:
        print('set ' + ', '.join('MAAT_' + k.upper() for k in missing))
        return 1
    t0 = time.monotonic()
    games = registered_games()
    check(len(games) >= 3, '%d registered games: %s'
          % (len(games), ' '.join(g[0] for g in games)))
    with tempfile.TemporaryDirectory(prefix='maat-games-') as tmp:
        ladder = os.path.join(tmp, 'ladder.jsonl')
        games_of, counter = {}, {}
        for game in games:
            for seats in range(game[1], game[2] + 1):
                series = 2 if seats in (game[1], game[2]) else 1
                play(tmp, ladder, game, seats, series, games_of, counter)
        standings(ladder, games, games_of, counter)
    return report(t0)


if __name__ == '__main__':
    sys.exit(main())
