// test_cxx_headers.cc -- the SDK's public headers from C++: a C++ bot
// includes them as they are installed and links to libmaat (their
// extern "C" blocks; without them every call failed to link, as C++
// names are mangled).  Calls one function of each header.
#include "maat/bot.h"
#include "maat/error.h"
#include "maat/game.h"
#include "maat/policy.h"
#include "maat/protocol.h"
#include "maat/rng.h"

#include <cstdio>

int main()
{
    const maat_rules *r = maat_rules_find("pyramids");
    maat_error err = {};
    maat_seed seed;
    if (!r || maat_seed_parse(&seed, "7", &err) != MAAT_OK) {
        std::printf("FAILED: the rules or the seed\n");
        return 1;
    }
    maat_options opt = {};
    maat_setup *setup = r->setup_new(&opt, &err);
    maat_game *g = setup ? r->game_new(setup, &seed, 2, nullptr, &err)
                         : nullptr;
    maat_rng rng;
    maat_rng_seed(&rng, &seed);
    maat_action a;
    int rc = g ? maat_policy_random(r, g, &rng, &a) : -1;
    if (g)
        r->destroy(&g);
    if (setup)
        r->setup_destroy(&setup);
    std::printf("%s: a random legal action from C++ (protocol %d)\n",
                rc == MAAT_OK ? "ok" : "FAILED", MAAT_PROTOCOL_VERSION);
    return rc == MAAT_OK ? 0 : 1;
}
