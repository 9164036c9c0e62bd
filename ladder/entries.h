/* entries.h -- a league's entries: the files in DIR/entries and their
 * versions.
 *
 * An entry is a file DIR/entries/NAME.json, dropped there by hand or by
 * `maat-ladder league add`: {"command": "..."} for a bot the league runs,
 * or {"key": "<CURVE public key>"} (optionally "token") for a remote bot
 * that connects by itself (docs/REMOTE.md).  NAME is 1 to 40 letters,
 * digits, '-' or '_'.  Every different content a file has had is a
 * version, kept as DIR/state/versions/NAME.K.json (K from 1) the first
 * time the league sees it, and rated as its own bot, "NAME.K", in the
 * ladder files.  A file that goes away retires its entry; one that cannot
 * be read as an entry is refused, with the reason, once per content.
 * What a version has done -- validated, failed, ranked, retired -- is read
 * from the ladder files by league.c, not kept here.
 */
#ifndef MAAT_ENTRIES_H
#define MAAT_ENTRIES_H

#include <stdint.h>

#include "maat/error.h"

#define MAAT_ENTRY_NAME 41   /* 40 characters and the NUL */
#define MAAT_CURVE_KEY 41    /* a Z85 CURVE key: 40 characters */

typedef struct maat_version {
    int v;                    /* 1, 2, ... */
    char bot[MAAT_ENTRY_NAME + 12]; /* "NAME.K": its name in the ladder */
    char *command;            /* the command, or NULL for a remote bot */
    char key[MAAT_CURVE_KEY]; /* a remote bot's public key, else "" */
    char *token;              /* a remote bot's token from its file, or
                                 NULL (then the league derives one) */
    char *json;               /* the canonical content, for comparing */
} maat_version;

typedef struct maat_entry {
    char name[MAAT_ENTRY_NAME];
    int present;              /* its file is in DIR/entries now */
    maat_version *ver;        /* ver[0] is version 1 */
    int n_ver;
    uint64_t refused;         /* hash of the content last refused */
} maat_entry;

typedef struct maat_entries {
    char *dir;                /* the league directory */
    maat_entry *e;
    int n, cap;
    uint64_t *bad_names;      /* hashes of the badly named files the
                                 last scan found (each refused once,
                                 while it stays) */
    int n_bad;
} maat_entries;

/* What a scan found, for the caller to report. */
enum { ENTRY_ADDED, ENTRY_VERSION, ENTRY_REMOVED, ENTRY_REFUSED };
typedef void (*maat_entry_event)(void *ctx, int what, const maat_entry *e,
                                 const char *why);

/* Load the versions kept in DIR/state/versions (none yet: empty); every
 * entry with a version counts as present until the first scan. */
int maat_entries_load(maat_entries *es, const char *dir, maat_error *err);
/* Read DIR/entries: register new versions (writing their version files),
 * mark which entries are present, and call `event` for each change. */
int maat_entries_scan(maat_entries *es, maat_entry_event event, void *ctx,
                      maat_error *err);
void maat_entries_free(maat_entries *es);

/* Is `name` an entry name?  (1-40 of [A-Za-z0-9_-].) */
int maat_entry_name_ok(const char *name);
/* Parse an entry's JSON text into v (its fields; v->v and v->bot unset).
 * A message in err naming the field when it is not an entry. */
int maat_entry_parse(const char *text, maat_version *v, maat_error *err);
void maat_version_free(maat_version *v);
/* The entry and version of a ladder bot name "NAME.K", or NULL. */
const maat_version *maat_entries_find_bot(const maat_entries *es,
                                          const char *bot,
                                          const maat_entry **entry);

/* Write DIR/entries/NAME.json holding `json` atomically (a temporary
 * file renamed), so a running league never reads half a file. */
int maat_entry_write(const char *dir, const char *name, const char *json,
                     maat_error *err);

#endif
