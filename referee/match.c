/* match.c -- the match loop: games, decisions, clocks, waiting for input.
 *
 * The flow: bind the socket, start the bots (bots.c), wait for every
 * hello, then for each game of the series ask the game module whose
 * decision it is, send that seat one request (protocol.c) and wait for its
 * action against the clock.  Every other thing that can arrive meanwhile
 * -- a late reply, a flood, a stranger's hello, a dying process, a signal
 * -- is handled in the same wait loop, so a bot can only ever cost its own
 * seat.  What a finished game writes is results.c's.
 *
 * Decoupled from time: the clock only decides timeouts; the game record is
 * a function of seed and actions alone, so it is byte-identical on replay.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maat/internal/msg.h"
#include "match_state.h"
#include <sys/resource.h>
#include <sys/signalfd.h>

#include "fairclock.h"
#include "maat/policy.h"
#include "record.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MAAT_HAS_ASAN 1
#endif
#endif
#ifndef MAAT_HAS_ASAN
#define MAAT_HAS_ASAN 0
#endif

void match_say(const match *m, const char *fmt, ...)
{
    if (m->c->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "maat-referee: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

void maat_match_config_init(maat_match_config *c)
{
    memset(c, 0, sizeof *c);
    maat_seed_from_u64(&c->seed, 1); /* maat-referee draws one instead */
    c->seed_weak = 1;
    c->games = 1;
    c->clock.decision_ms = 1000;
    c->clock.first_ms = 5000;
    c->clock.bank_ms = 0;
    c->clock.increment_ms = 0;
    c->clock.grace_ms = 100;
    c->clock.wait_credit = 1;
    c->clock.hello_ms = 10000;
    /* Illegal or malformed answers and timeouts get a default action and
     * three strikes: one glitch should not end a long ladder game.  A crash
     * or a missing hello cannot be struck: the bot is gone. */
    c->policy.strikes[MAAT_FAULT_TIMEOUT] = 3;
    c->policy.strikes[MAAT_FAULT_ILLEGAL] = 3;
    c->policy.strikes[MAAT_FAULT_MALFORMED] = 3;
    c->policy.strikes[MAAT_FAULT_CRASH] = 0;
    c->policy.strikes[MAAT_FAULT_NO_HELLO] = 0;
    c->limits.address_space = 2ULL << 30;
#if defined(__SANITIZE_ADDRESS__) || MAAT_HAS_ASAN
    /* An AddressSanitizer build reserves terabytes of shadow address
     * space, and the bots of such a build tree are sanitized too: any
     * address-space limit would stop them before their hello. */
    c->limits.address_space = 0;
#endif
    c->limits.cpu_seconds = 600;
    c->limits.processes = 64;
    c->limits.open_files = 256;
    c->limits.log_cap = 1 << 20;
    c->sandbox_tmp_mb = 64;
}

int maat_fault_policy_parse(const char *text, int *strikes)
{
    if (strcmp(text, "forfeit") == 0) {
        *strikes = 0;
        return MAAT_OK;
    }
    char *end;
    if (strncmp(text, "strikes:", 8) == 0) {
        long n = strtol(text + 8, &end, 10);
        if (!*end && n >= 1 && n <= 1000000) {
            *strikes = (int)n;
            return MAAT_OK;
        }
    }
    return MAAT_EINVAL;
}

static void on_refused_key(void *ctx, const char *why)
{
    match_say((const match *)ctx, "%s", why);
}

/* Handle what the socket holds, up to `cap` messages: the number read. */
static int read_socket(match *m, int cap)
{
    maat_inbound in;
    int k = 0;
    while (k < cap && maat_transport_recv(m->tr, &in)) {
        match_on_inbound(m, &in);
        maat_inbound_close(&in);
        k++;
    }
    return k;
}

#define MATCH_READ_CAP 10000 /* messages per call: the clock is checked */

/* Wait for input until deadline_ns.  Returns when the deadline passes,
 * input was handled, or we were interrupted.
 *
 * One poll() over the socket's ZMQ_FD, the signalfd, the ZAP socket's fd
 * and the bots' output pipes (zmq_poll cost ~2,400 instructions and three
 * more system calls a decision: it asks every socket for its descriptor,
 * polls once without waiting, then asks for its events before and after
 * the real wait).  ZMQ_FD is edge-triggered (transport.h): it wakes us
 * only for what arrives after libzmq last looked, and a send may have
 * looked (the request just sent, a welcome).  So the socket is read dry
 * before the poll, and the poll waits only when that found nothing; a
 * readable ZMQ_FD then gets one receive, and the next call reads the
 * rest dry before it waits again.  Nothing that arrived is left unread
 * while we sleep, and a flood is read MATCH_READ_CAP at a time, the
 * caller checking its clock in between. */
static void wait_input(match *m, int64_t deadline_ns, int look_at_end);

void match_wait_input(match *m, int64_t deadline_ns)
{
    wait_input(m, deadline_ns, 1);
}

/* look_at_end: a wait that runs out is a reason to look at the bots'
 * processes (a bot that does not answer may have died) -- not when the
 * deadline is only the moment to lower the idle bots */
static void wait_input(match *m, int64_t deadline_ns, int look_at_end)
{
    struct pollfd fds[3 + MAAT_MAX_SEATS];
    int n = 0;
    fds[n++] = (struct pollfd){maat_transport_fd(m->tr), POLLIN, 0};
    fds[n++] = (struct pollfd){m->sigfd, POLLIN, 0};
    int zap = maat_transport_zap_fd(m->tr);
    if (zap >= 0)
        fds[n++] = (struct pollfd){zap, POLLIN, 0};
    int pipes = n;
    for (int i = 0; i < m->n; i++)
        if (m->bot[i].proc && maat_proc_output_fd(m->bot[i].proc) >= 0)
            fds[n++] = (struct pollfd){maat_proc_output_fd(m->bot[i].proc),
                                       POLLIN, 0};
    if (zap >= 0)
        maat_transport_handle_zap(m->tr, on_refused_key, m);
    int got = read_socket(m, MATCH_READ_CAP);
    int timeout = 0;
    if (!got) {
        int64_t left_ms = (deadline_ns - maat_now_ns() + 999999) / 1000000;
        /* wake at least every 200 ms to notice processes that exit without
         * a SIGCHLD reaching us (e.g. a grandchild holding the pipe) */
        timeout = left_ms < 0 ? 0 : left_ms > 200 ? 200 : (int)left_ms;
    }
    int rc = poll(fds, (nfds_t)n, timeout);
    if (rc < 0 && errno != EINTR)
        return;
    /* Reading the bots' pipes and reaping costs two system calls per bot,
     * so it is done only when there is a reason: a signal (SIGCHLD), output
     * on a pipe, a wait that ran out, or 200 ms since the last look (a
     * process can end without a SIGCHLD reaching us, e.g. a grandchild
     * holding the pipe). */
    int look = (rc == 0 && !got && look_at_end) ||
               maat_now_ns() - m->processes_checked_ns > 200000000;
    for (int i = pipes; i < n; i++)
        look |= rc > 0 && fds[i].revents != 0;
    if (rc > 0 && (fds[1].revents & POLLIN)) {
        struct signalfd_siginfo si;
        look = 1;
        while (read(m->sigfd, &si, sizeof si) == (ssize_t)sizeof si)
            if (si.ssi_signo != SIGCHLD) { /* SIGINT, SIGTERM, SIGHUP */
                match_say(m, "interrupted by signal %u; stopping", si.ssi_signo);
                m->interrupted = 1;
            }
    }
    if (rc > 0 && zap >= 0 && fds[2].revents)
        maat_transport_handle_zap(m->tr, on_refused_key, m);
    if (rc > 0 && fds[0].revents)
        read_socket(m, 1);
    if (look) {
        match_check_processes(m);
        m->processes_checked_ns = maat_now_ns();
    }
}

/* Seats for game k: a seeded shuffle (or the given order) rotated by k. */
static void assign_seats(match *m, int k)
{
    int base[MAAT_MAX_SEATS];
    for (int i = 0; i < m->n; i++)
        base[i] = i;
    if (!m->c->fixed_seats) {
        maat_rng r;
        maat_seed key;
        maat_seed_derive(&key, &m->c->seed, "seats");
        maat_rng_seed(&r, &key);
        maat_rng_shuffle_int(&r, base, m->n);
    }
    for (int i = 0; i < m->n; i++) {
        int seat = (base[i] + k) % m->n;
        m->bot[i].seat = seat;
        m->seat_bot[seat] = i;
    }
}

int64_t match_base_ms(const match *m, const match_bot *b)
{
    return b->first_done ? m->c->clock.decision_ms : m->c->clock.first_ms;
}

/* Wait for the seat's answer until its time plus grace is up, the deadline
 * moved by the time the referee or a starved bot waited for a CPU
 * (fairclock.h; at most `allowed + grace`, or a second, in all).  `base`: a
 * sample taken as the request left, for a bot that takes its time, or
 * NULL: then the first sample is taken at the limit, so an instant bot in
 * time costs nothing extra.  The costly sample (the bot's process group,
 * thread states) only past limit + grace; until the first of those the
 * credit is at most the grace.  The credit is always reckoned from the
 * first sample to the latest as one window (a wait the kernel counts only
 * when it ends may span several looks).  A thread still queued for a CPU
 * at the deadline has a wait not counted yet: while one is, and the bot's
 * processes do not keep the CPU busy themselves, the referee looks again
 * every MAAT_FAIR_PROBE_MS (within the same cap) rather than give up.
 * Before giving up it reads what has already arrived: an answer that came
 * while it sampled is in time.  Returns the credit given, in ns. */
#define MAAT_FAIR_PROBE_MS 5
#define MAAT_FAIR_CAP_MIN_MS 1000
static int64_t wait_for_answer(match *m, match_bot *b, int64_t t0,
                               int64_t allowed, const maat_fair_sample *base,
                               int64_t *others_out)
{
    const maat_clock_config *c = &m->c->clock;
    int64_t limit = t0 + allowed * 1000000;
    int64_t grace = c->grace_ms * 1000000;
    int64_t due = limit + grace; /* the deadline, moved by the credit */
    int64_t look = due;          /* when to sample next */
    /* at most the decision's time and grace again, or a second: on a
     * machine that loaded, short decisions wait longer than that */
    int64_t credit = 0, cap = allowed * 1000000 + grace;
    if (cap < MAAT_FAIR_CAP_MIN_MS * 1000000)
        cap = MAAT_FAIR_CAP_MIN_MS * 1000000;
    int sampled = !c->wait_credit || base; /* off: never credited */
    maat_fair_sample start, full, probe, first; /* set before use */
    int have_full = 0, probing = 0;
    if (base)
        start = *base;
    pid_t pid = b->proc ? maat_proc_bot_pid(b->proc) : 0;
    /* a decision that lasts a millisecond: the idle bots are lowered
     * (no wake-up for it where priorities are off or cannot be restored) */
    int64_t lower = m->c->ponder || m->turn_disabled
                        ? INT64_MAX
                        : t0 + MATCH_LOWER_AFTER_MS * 1000000;
    m->pending_action_ok = 0;
    int64_t others = 0; /* m->others_ns moved into the schedule so far */
    while (!m->pending_action_ok && !b->out && !m->interrupted) {
        /* time spent on other seats' messages was not this bot's: the
         * schedule moves by it (at most the cap, as the credit) */
        int64_t o = m->others_ns < cap ? m->others_ns : cap;
        if (o > others) {
            int64_t add = o - others;
            others = o;
            limit += add;
            due += add;
            look += add;
            if (lower != INT64_MAX)
                lower += add;
        }
        int64_t now = maat_now_ns();
        if (now >= lower) {
            match_lower_idle(m, b);
            lower = INT64_MAX;
        }
        if (!sampled && now >= limit) {
            maat_fair_sample_take(&start, pid, 0);
            sampled = 1;
        }
        if (now >= look) {
            if (!c->wait_credit || credit >= cap) {
                match_wait_input(m, 0); /* what came in the meantime */
                break;
            }
            maat_fair_sample again;
            maat_fair_sample_take(&again, pid, 1);
            if (!have_full)
                full = again;
            have_full = 1;
            int64_t total = maat_fair_credit_total(&start, &full, &again,
                                                   grace);
            if (total > cap)
                total = cap;
            if (total - credit >= 1000000) { /* a millisecond or more */
                due += total - credit;
                credit = total;
                look = due > now ? due : now;
                probing = 0;
                continue;
            }
            /* looking again is for a queued thread, not for a bot busy
             * on its own threads or children: while probing, the bot's
             * processes must have used under half the time, give or take
             * a clock tick (the group's CPU is counted in 10 ms ticks: one
             * falling into a 5 ms look must not end the probing) */
            if (now - due < cap - credit &&
                maat_fair_queued(probing ? &probe : NULL, &again) &&
                (!probing || 2 * maat_fair_used(&first, &again) <
                                 again.at_ns - first.at_ns + 20000000)) {
                if (!probing)
                    first = again;
                probe = again;
                probing = 1;
                look = now + MAAT_FAIR_PROBE_MS * 1000000;
                continue;
            }
            match_wait_input(m, 0); /* what came while it sampled */
            break;
        }
        int64_t until = sampled ? look : limit;
        if (lower < until)
            wait_input(m, lower, 0);
        else
            match_wait_input(m, until);
    }
    *others_out = others;
    return credit;
}

/* Ask the seat's bot for an action; fall back to the default policy.
 * MAAT_ESTATE: interrupted (no message); any other failure is the
 * referee's own (out of memory, the rules refusing their own action) and
 * fills *gerr. */
static int play_decision(match *m, maat_decision d, maat_events *ev,
                         maat_error *gerr)
{
    const maat_rules *r = m->c->rules;
    match_bot *b = &m->bot[m->seat_bot[d.seat]];
    maat_action legal_small[512], *legal = legal_small, a;
    int n_legal = r->legal_actions(m->g, legal_small, 512);
    if (n_legal > 512) {
        legal = malloc(sizeof *legal * (size_t)n_legal);
        if (!legal)
            return maat_error_set(gerr, MAAT_ENOMEM, "out of memory for %d "
                                  "legal actions", n_legal);
        r->legal_actions(m->g, legal, n_legal);
    }
    maat_error err = {0};
    int64_t wall = 0, not_charged = 0;
    uint64_t cpu = 0;
    if (b->dead && !b->out)
        match_fault(m, b, b->dead_kind, "%s", b->dead_detail);
    /* the clock starts before the send: sending is part of the turn */
    int64_t t0 = maat_now_ns();
    /* the bot's CPU clock is a system call to read: only when it is shown
     * (the summary) or recorded (--record-timing) */
    int timed_cpu = b->proc && (m->c->record_timing || !m->c->quiet);
    uint64_t cpu0 = 0;
    /* a bot that takes its time: sampled now too (fairclock.h) */
    maat_fair_sample base;
    int presample = !b->out && m->c->clock.wait_credit &&
                    (!b->first_done || b->wall_ns_last >= 1000000);
    if (presample)
        maat_fair_sample_quick(&base, &m->fair_self, &b->fair_watch,
                               b->proc ? maat_proc_bot_pid(b->proc) : 0);
    if (!b->out && match_send_request(m, b, d, legal, n_legal) == 0) {
        /* The bot's CPU clock is read, and its priority restored if a
         * long decision of another lowered it, while the request travels
         * (libzmq's I/O thread writes it; the bot wakes later): system
         * calls that before the send lay on every round trip (issue 19;
         * docs/PERFORMANCE.md, "Off the round trip"). */
        cpu0 = timed_cpu ? maat_proc_cpu_ns(b->proc) : 0;
        match_give_turn(m, b);
        /* this request's allowance: the first decision's is --first-time,
         * and it stays so once the decision is done (first_done below) */
        int64_t base_ms = match_base_ms(m, b);
        int64_t allowed = base_ms + b->bank_ms;
        int64_t others = 0;
        m->deciding = b;
        m->others_ns = 0;
        int64_t credit = wait_for_answer(m, b, t0, allowed,
                                         presample ? &base : NULL, &others);
        m->deciding = NULL;
        /* an answer's time ends when it was accepted, not when the rest of
         * what came with it had been read */
        wall = (m->pending_action_ok == 1 ? m->answered_ns : maat_now_ns()) -
               t0;
        /* a bot killed while deciding has no CPU clock left to read (0):
         * no time rather than a negative one */
        not_charged = credit + others;
        uint64_t cpu1 = timed_cpu ? maat_proc_cpu_ns(b->proc) : 0;
        cpu = cpu1 > cpu0 ? cpu1 - cpu0 : 0;
        b->first_done = 1;
        b->decisions++;
        b->wall_ns_total += wall;
        b->wall_ns_max = wall > b->wall_ns_max ? wall : b->wall_ns_max;
        b->wall_ns_last = wall;
        b->cpu_ns_total += cpu;
        if (m->interrupted) {
            if (legal != legal_small)
                free(legal);
            return MAAT_ESTATE;
        }
        if (m->c->log_dir && b->proc) /* what it wrote while deciding */
            maat_proc_drain(b->proc);
        if (m->pending_action_ok == 1) {
            /* the clock: time beyond the per-decision limit comes out of
             * the bank; the increment is added afterwards */
            int64_t used_ms = (wall - credit - others) / 1000000;
            int64_t over = used_ms - base_ms;
            if (over > 0)
                b->bank_ms = b->bank_ms > over ? b->bank_ms - over : 0;
            b->bank_ms += m->c->clock.increment_ms;
            a = m->pending_action;
            if (r->apply(m->g, &a, ev, &err) == MAAT_OK) {
                match_record_decision(m, d.seat, &a, 1, wall, cpu,
                                      not_charged);
                goto done;
            }
            match_fault(m, b, MAAT_FAULT_ILLEGAL, "%s", err.msg);
        } else if (m->pending_action_ok == 0 && !b->out) {
            b->last_timed_out = b->outstanding;
            b->outstanding = -1;
            char cpu_note[64] = "", seats_note[64] = "";
            if (credit >= 1000000)
                snprintf(cpu_note, sizeof cpu_note, ", +%lld ms waiting for "
                         "a CPU", (long long)(credit / 1000000));
            if (others >= 1000000)
                snprintf(seats_note, sizeof seats_note, ", +%lld ms reading "
                         "other seats' messages",
                         (long long)(others / 1000000));
            match_fault(m, b, MAAT_FAULT_TIMEOUT,
                        "no answer within %lld ms (+%lld ms grace%s%s)",
                        (long long)allowed, (long long)m->c->clock.grace_ms,
                        cpu_note, seats_note);
            b->bank_ms = 0;
        }
    }
    /* the default policy: seeded, so a replay makes the same choice */
    int prc = maat_policy_random(r, m->g, &m->default_rng, &a);
    if (prc != MAAT_OK || r->apply(m->g, &a, ev, &err) != MAAT_OK) {
        if (legal != legal_small)
            free(legal);
        /* cannot happen: the rules refused their own legal action */
        return maat_error_set(gerr, prc == MAAT_ENOMEM ? MAAT_ENOMEM :
                              MAAT_EILLEGAL, "seat %d: the default policy %s",
                              d.seat, prc == MAAT_ENOMEM ? "ran out of memory"
                              : prc ? "found no legal action"
                              : "played an action the rules refused");
    }
    match_record_decision(m, d.seat, &a, 0, wall, cpu, not_charged);
done:
    if (legal != legal_small)
        free(legal);
    return MAAT_OK;
}

static int play_game(match *m, int k, maat_error *err)
{
    const maat_rules *r = m->c->rules;
    int64_t started = maat_now_ns();
    m->game_index = k;
    if (k == 0 || m->c->same_deal) {
        m->game_seed = m->c->seed;
    } else {
        char label[32];
        snprintf(label, sizeof label, "game %d", k);
        maat_seed_derive(&m->game_seed, &m->c->seed, label);
    }
    m->decision_no = 0;
    maat_seed key;
    maat_seed_derive(&key, &m->game_seed, "policy");
    maat_rng_seed(&m->default_rng, &key);
    assign_seats(m, k);
    maat_events_clear(&m->ev);
    m->ev_encoded = 0;
    m->evb.sb.size = 0;
    m->g = r->game_new(m->setup, &m->game_seed, m->n, &m->ev, err);
    if (!m->g)
        return err->code;
    m->n_dec = 0;
    m->faults = json_array();
    if (!m->faults) { /* a fault could not be kept: no game without it */
        r->destroy(&m->g);
        return maat_error_set(err, MAAT_ENOMEM, "out of memory");
    }
    for (int i = 0; i < m->n; i++) {
        match_bot *b = &m->bot[i];
        b->out = 0;
        memset(b->strikes, 0, sizeof b->strikes);
        b->faults = b->faults_dropped = 0;
        b->bank_ms = m->c->clock.bank_ms;
        b->events_sent = 0;
        b->has_observation = 0; /* version 2: a full observation first */
        if (!b->dead)
            match_send_start(m, b);
    }
    for (int i = 0; i < m->n; i++) /* a bot gone before this game is out */
        if (m->bot[i].dead)
            match_fault(m, &m->bot[i], m->bot[i].dead_kind, "%s",
                  m->bot[i].dead_detail);
    int rc = MAAT_OK;
    match_logs_for_game(m, k);
    while (!r->is_over(m->g) && rc == MAAT_OK) {
        match_tag_logs(m);
        rc = play_decision(m, r->decision(m->g), &m->ev, err);
        m->decision_no++;
    }
    if (rc == MAAT_OK)
        rc = match_finish_game(m, started, err);
    else if (rc == MAAT_ESTATE)
        maat_error_set(err, MAAT_ESTATE, "interrupted during game %d", k);
    json_decref(m->faults);
    m->faults = NULL;
    r->destroy(&m->g);
    return rc;
}

static void derive_match_id(match *m)
{
    const maat_match_config *c = m->c;
    if (c->match_id) {
        snprintf(m->match_id, sizeof m->match_id, "%s", c->match_id);
        return;
    }
    /* keyed BLAKE2b: the id (in ladder lines and log file names, which
     * the bots of later matches might read) tells nothing of the seed,
     * and is the same for the same match */
    char label[MAAT_MAX_SEATS * 64 + 80];
    int len = snprintf(label, sizeof label, "match id|%s", c->rules->name);
    for (int i = 0; i < c->n_bots && len < (int)sizeof label; i++)
        len += snprintf(label + len, sizeof label - (size_t)len, "|%s",
                        c->bots[i].name);
    maat_seed h;
    maat_seed_derive(&h, &c->seed, label);
    for (int i = 0; i < 8; i++)
        snprintf(m->match_id + 2 * i, 3, "%02x", h.b[i]);
}

/* Every connection to the referee costs it a descriptor, and libzmq 4.3
 * aborts the process when an ipc:// accept fails for lack of one.  Bots
 * cannot be stopped from connecting, so the referee takes every descriptor
 * the hard limit allows (bots keep their own --limit-nofile). */
static void raise_open_files_limit(const match *m)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= rl.rlim_max)
        return;
    rl.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        match_say(m, "cannot raise the open-files limit: %s",
                  strerror(errno));
}

int maat_match_run(const maat_match_config *c, maat_error *err)
{
    match *m = calloc(1, sizeof *m);
    if (!m)
        return maat_error_set(err, MAAT_ENOMEM, "out of memory");
    m->c = c;
    m->n = c->n_bots;
    m->sigfd = -1;
    msgpack_sbuffer_init(&m->ob.sb);
    msgpack_packer_init(&m->ob.pk, &m->ob.sb, maat_sbuffer_write);
    msgpack_sbuffer_init(&m->evb.sb);
    msgpack_packer_init(&m->evb.pk, &m->evb.sb, maat_sbuffer_write);
    if (!msgpack_zone_init(&m->zone, MSGPACK_ZONE_CHUNK_SIZE)) {
        msgpack_sbuffer_destroy(&m->ob.sb);
        free(m);
        return maat_error_set(err, MAAT_ENOMEM, "out of memory");
    }
    int rc = MAAT_OK;
    if (m->n < c->rules->min_seats || m->n > c->rules->max_seats) {
        rc = maat_error_set(err, MAAT_EINVAL, "%s is for %d to %d seats; "
                            "%d bots given", c->rules->name,
                            c->rules->min_seats, c->rules->max_seats, m->n);
        goto out;
    }
    for (int i = 0; i < m->n; i++)
        if (c->bots[i].command &&
            strlen(c->bots[i].command) > MAAT_MAX_COMMAND) {
            rc = maat_error_set(err, MAAT_EINVAL, "bot %s: its command has "
                                "%zu bytes, at most %d", c->bots[i].name,
                                strlen(c->bots[i].command), MAAT_MAX_COMMAND);
            goto out;
        }
    derive_match_id(m);
    /* A result that could not be written would be lost after the whole
     * match was played: find out now.  (Sandboxed bots get the ladder
     * file hidden, which needs it to exist before they start.) */
    if ((c->record_path &&
         maat_record_check_writable(c->record_path, c->games, err)) ||
        (c->ladder_path &&
         maat_ladder_check_writable(c->ladder_path, c->sandbox, err))) {
        rc = err->code;
        goto out;
    }
    raise_open_files_limit(m);
    m->setup = c->rules->setup_new(&c->options, err);
    if (!m->setup) {
        /* a bad deck or option: the config (out of memory stays so) */
        rc = err->code = err->code == MAAT_ENOMEM ? MAAT_ENOMEM : MAAT_EINVAL;
        goto out;
    }
    /* SIGINT/SIGTERM/SIGHUP/SIGCHLD arrive through a signalfd in the wait
     * loop, so an interrupt (a closed terminal included) always ends with
     * every bot process stopped. */
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    sigaddset(&mask, SIGCHLD);
    pthread_sigmask(SIG_BLOCK, &mask, &m->oldmask);
    m->mask_set = 1;
    m->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    if (m->sigfd < 0) { /* without it no interrupt would ever be seen */
        rc = maat_error_set(err, MAAT_EIO, "signalfd: %s", strerror(errno));
        goto out;
    }
    signal(SIGPIPE, SIG_IGN);
    m->tr = maat_transport_new(c->zmq_context, c->endpoint, c->curve_secret,
                               err);
    if (!m->tr) {
        rc = err->code;
        goto out;
    }
    if (c->sandbox)
        match_sandbox_hides(m);
    m->machine_ooms = maat_proc_machine_oom_kills();
    rc = match_start_bots(m, err);
    if (rc)
        goto out;
    rc = match_await_hellos(m, err);
    for (int k = 0; k < c->games && rc == MAAT_OK && !m->interrupted; k++) {
        if (k > 0 && c->fresh_bots)
            rc = match_restart_bots(m, err);
        if (rc == MAAT_OK && !m->interrupted)
            rc = play_game(m, k, err);
    }
    if (m->interrupted && rc == MAAT_OK)
        rc = maat_error_set(err, MAAT_ESTATE, "interrupted");
    match_send_bye(m);
    match_report_strangers(m);
    match_report_notes(m);
    match_print_summary(m);
out:
    if (m->tr)
        match_stop_bots(m);
    for (int i = 0; i < m->n; i++) {
        maat_proc_destroy(&m->bot[i].proc);
        maat_fair_watch_close(&m->bot[i].fair_watch);
    }
    maat_fair_watch_close(&m->fair_self);
    maat_transport_destroy(&m->tr);
    if (m->setup)
        c->rules->setup_destroy(&m->setup);
    maat_events_free(&m->ev);
    if (m->sigfd >= 0)
        close(m->sigfd);
    if (m->mask_set)
        pthread_sigmask(SIG_SETMASK, &m->oldmask, NULL);
    msgpack_sbuffer_destroy(&m->ob.sb);
    msgpack_sbuffer_destroy(&m->evb.sb);
    free(m->ev_end);
    msgpack_zone_destroy(&m->zone);
    free(m->dec);
    free(m);
    return rc;
}
