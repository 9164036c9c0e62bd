/* match_state.h -- the state of one running match, shared by the files
 * that run it.  Internal to the referee: nothing outside referee/ includes
 * this.
 *
 * Who owns what:
 *   match.c    the loop: games, decisions, clocks, waiting for input
 *   protocol.c the referee's side of the protocol: every message sent to a
 *              bot, and every inbound message (hellos, actions, strangers)
 *   bots.c     bot lifecycle: spawning with tokens and limits, hellos,
 *              watching processes, stopping them and their escapees
 *   results.c  faults and strikes, match ranks, the decisions kept for the
 *              record, what a finished game writes (record, ladder line,
 *              console tables)
 * The match is single-threaded: one thread runs maat_match_run and every
 * function here.
 */
#ifndef MAAT_MATCH_STATE_H
#define MAAT_MATCH_STATE_H

#include <signal.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>
#include <msgpack.h>

#include "fairclock.h"
#include "maat/game.h"
#include "maat/protocol.h"
#include "match.h"
#include "transport.h"

#define MAX_FAULTS_RECORDED 50 /* per bot and game; the rest are counted */

/* A bot: a connection identity that lives for the whole match. */
typedef struct match_bot {
    const maat_bot_spec *spec;
    char token[MAAT_MAX_TOKEN + 1];
    maat_proc *proc;
    uint8_t rid[256];
    size_t rid_len;
    int connected;
    int dead;             /* crashed, disconnected or never said hello */
    int dead_kind;        /* fault kind that killed it */
    char dead_detail[480];
    int first_done;       /* has had its first decision (load allowance) */
    int lowered;          /* its process group at nice 19 (bots.c) */
    int version;          /* protocol version agreed in the hello: 1-3 */
    /* per game */
    int seat;
    int out;              /* forfeited: the default policy plays for it */
    int strikes[MAAT_FAULT_KINDS]; /* per kind, against that kind's limit */
    int64_t bank_ms;
    size_t events_sent;   /* index into the game's event log */
    int has_observation;  /* version 2+: sent an observation this game */
    int resynced;         /* version 2+: the open request was sent again */
    int64_t outstanding;  /* seq of the request awaiting an answer, or -1 */
    int64_t last_answered, last_timed_out;
    int faults, faults_dropped;
    /* over the match: notes that are not faults (a late reply discarded, a
     * message before the game), the first MATCH_NOTES_LOGGED of each
     * logged, the rest counted and reported once at the end */
    uint64_t late_notes, early_notes;
    /* stats over the match */
    int64_t decisions, wall_ns_total, wall_ns_max;
    int64_t wall_ns_last; /* its last decision's (fairclock.h) */
    maat_fair_watch fair_watch; /* its threads' schedstat files, open */
    uint64_t cpu_ns_total;
    uint64_t memory_peak; /* bytes, its cgroup's (--limit-mem): the most of
                             the processes stopped so far (a restart) */
} match_bot;

/* A connection with no seat.  Each is allowed a few messages that are
 * read and answered (a hello is normally the first and only one); after
 * that its messages are counted and dropped unread, and only the first
 * few are logged, so a flood neither fills the disk nor slows the match. */
#define MAX_STRANGERS 64
#define STRANGER_READ 8    /* messages decoded per connection */
#define STRANGER_LOGGED 3  /* messages logged per connection */
/* A hello is under 200 bytes: a message from a connection with no seat
 * that is larger is dropped unread (decoding 64 KiB of msgpack takes about
 * a millisecond), counted with that connection's messages. */
#define STRANGER_MAX_BYTES 4096
/* The largest hello (a 255-byte token, a name, a version): while a seat
 * decides, a larger message from a connection beyond the table is
 * dropped unread (protocol.c, on_stranger) */
#define HELLO_MAX_BYTES 512
#define MATCH_NOTES_LOGGED 3 /* per bot and kind (late_notes, early_notes) */
typedef struct stranger {
    uint8_t rid[256];
    size_t rid_len;
    char user[64];     /* with CURVE: the key's entrant */
    uint64_t messages;
} stranger;

#define MATCH_HIDE_RECORDS 8 /* existing records of a series hidden by name */
#define MATCH_HIDES (5 + MATCH_HIDE_RECORDS + MAAT_MAX_HIDE)
/* a sandbox's command line: the bot's command (4000 bytes), the paths it
 * hides, and up to MAAT_SANDBOX_MAX_SOCKETS host sockets it covers */
#define MATCH_BOXED_MAX (256 * 1024)

typedef struct outbuf {
    msgpack_sbuffer sb;
    msgpack_packer pk;
} outbuf;

/* One applied decision, kept as plain data during the game; the record's
 * JSON is built from these once, at the end, and only if it is wanted. */
typedef struct decision_rec {
    int seat;
    int by_bot;
    maat_action action;
    int64_t wall_ns;
    uint64_t cpu_ns;
    int64_t think_us; /* the bot's own report (think_us), -1: none */
    int64_t credit_ns; /* of wall_ns, not the bot's: waiting for a CPU,
                          reading other seats' messages (match.c) */
} decision_rec;

/* The largest think_us a bot may report (about 12 days): only recorded,
 * never used for the clock. */
#define MATCH_MAX_THINK_US ((int64_t)1 << 40)

typedef struct match {
    const maat_match_config *c;
    outbuf ob;
    decision_rec *dec;
    size_t n_dec, cap_dec;
    maat_transport *tr;
    int sigfd;
    sigset_t oldmask;
    int mask_set; /* oldmask holds the mask to restore */
    uint64_t machine_ooms; /* the machine's OOM kills when the match began */
    maat_fair_watch fair_self; /* the referee's threads' schedstat files */
    int interrupted;
    maat_setup *setup;
    match_bot bot[MAAT_MAX_SEATS];
    int n;
    int seat_bot[MAAT_MAX_SEATS]; /* seat -> bot index, this game */
    int64_t seq;
    /* the game being played */
    maat_game *g;
    maat_events ev;
    int game_index;
    maat_seed game_seed;  /* never sent to a bot; recorded at the end */
    int decision_no;
    int64_t processes_checked_ns; /* last check_processes, now_ns() */
    maat_rng default_rng;
    json_t *faults;
    /* The game's events as sent (protocol.c, pack_events): each is
     * encoded once, for the first seat sent it, and its bytes copied for
     * the others; reset with the event log at each game's start. */
    outbuf evb;
    size_t *ev_end;         /* ev_end[i]: where event i's bytes end in evb */
    size_t ev_cap, ev_encoded;
    /* the bot message being checked (protocol.c, on_bot_message), cleared
     * for the next: no zone made and freed per message */
    msgpack_zone zone;
    int pending_action_ok;  /* set by the message handler */
    int64_t answered_ns;    /* when it was set to 1 (the answer accepted) */
    /* While a seat decides: that bot, and the time spent on the other
     * seats' messages since its request left (match_on_inbound), which is
     * not its time (match.c, wait_for_answer). */
    const match_bot *deciding;
    int64_t others_ns;
    maat_action pending_action;
    int64_t pending_think_us; /* its think_us, -1: not sent */
    /* the open request, for a resync: valid during play_decision only */
    maat_decision cur_decision;
    const maat_action *cur_legal;
    int cur_n_legal;
    char match_id[MAAT_MAX_MATCH_ID + 1];
    /* sandboxes: what the referee writes, hidden from the bots */
    char hide_buf[MATCH_HIDES][1024];
    char *hide[MATCH_HIDES + 1];
    const char *hide_from[MATCH_HIDES + 1]; /* the option that named each */
    char private_buf[MAAT_MAX_PRIVATE][1024]; /* --private's, resolved */
    int turn_disabled;  /* priorities cannot be restored here */
    /* addresses with no seat that sent something: counted, not believed */
    stranger strangers[MAX_STRANGERS];
    int n_strangers;
    uint64_t strangers_unlisted; /* messages from peers beyond the table */
    uint64_t strangers_unread;   /* of those, dropped while a seat decided */
} match;

static inline int64_t maat_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* match.c */
void match_say(const match *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Wait for input until deadline_ns: handles every inbound message, signal
 * and bot exit that arrives meanwhile. */
void match_wait_input(match *m, int64_t deadline_ns);
/* The per-decision time of a bot's next decision (its first is longer). */
int64_t match_base_ms(const match *m, const match_bot *b);

/* protocol.c */
outbuf *match_out(match *m);
int match_send(match *m, match_bot *b, outbuf *o);
void match_on_inbound(match *m, maat_inbound *in);
/* Log what connections with no seat sent beyond what was logged. */
void match_report_strangers(const match *m);
void match_report_notes(const match *m);
void match_send_start(match *m, match_bot *b);
/* A request for decision d; a version-2 or -3 seat gets the observation only
 * in its first request of the game. */
int match_send_request(match *m, match_bot *b, maat_decision d,
                       const maat_action *legal, int n_legal);
void match_send_end(match *m, match_bot *b, const int *ranks);
void match_send_bye(match *m);

/* bots.c */
int match_start_bots(match *m, maat_error *err);
/* Wait for every bot's hello (until the hello time); a bot without one is
 * dead.  MAAT_EHOST when a sandboxed bot's sandbox could not be made (the
 * machine's failure: the match stops, no result written). */
int match_await_hellos(match *m, maat_error *err);
void match_check_processes(match *m);
void match_stop_bots(match *m);
/* Bot logs (--log-dir): the file of bot b in game `game`; switching every
 * bot to this game's log; tagging what they write with the decision. */
/* The paths each sandbox hides: results and --hide (absolute). */
void match_sandbox_hides(match *m);
void match_log_path(const match *m, const match_bot *b, int game, char *out,
                    size_t len);
void match_logs_for_game(match *m, int game);
void match_tag_logs(match *m);
/* --fresh-bots, between games: bye, stop every bot, start new processes
 * with new tokens and wait for their hellos. */
int match_restart_bots(match *m, maat_error *err);
/* The turn of bot b: if it was lowered, its processes get the normal
 * priority back (not with --ponder; bots.c says when bots are lowered). */
void match_give_turn(match *m, match_bot *b);
/* Bot b's decision has lasted MATCH_LOWER_AFTER_MS: every other spawned
 * bot's processes get the lowest priority, so an idle bot cannot take the
 * deciding bot's CPU (not with --ponder). */
#define MATCH_LOWER_AFTER_MS 1
void match_lower_idle(match *m, match_bot *b);

/* results.c */
void match_fault(match *m, match_bot *b, int kind, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A late reply's think_us, added to the seat's last timeout fault in the
 * record (with --record-timing): was the bot late by its own clock? */
void match_note_late_think(match *m, match_bot *b, int64_t think_us);
int match_record_decision(match *m, int seat, const maat_action *a,
                          int by_bot, int64_t wall_ns, uint64_t cpu_ns,
                          int64_t credit_ns);
int match_finish_game(match *m, int64_t started_ns, maat_error *err);
void match_print_summary(const match *m);

#endif
