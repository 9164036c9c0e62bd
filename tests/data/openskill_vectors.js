// openskill_vectors.js -- regenerate the OpenSkill (Weng-Lin Plackett-Luce)
// oracle vectors pasted into tests/test_ladder.c.
//
// The oracle is the npm package openskill 5.0.1, an implementation
// independent of ladder/rating.c.  Set it up once (works offline here):
//     mkdir -p /tmp/os && cd /tmp/os && npm init -y && npm install openskill@5.0.1
// then, from /tmp/os (or with NODE_PATH=/tmp/os/node_modules):
//     node /work/main/tests/data/openskill_vectors.js
// and paste the output over the `os_cases` table in tests/test_ladder.c.
//
// What openskill 5.0.1 does with tau (dist/rate.js): rate() replaces every
// sigma by sqrt(sigma^2 + tau^2) before the model runs (default tau 25/300,
// limitSigma false), exactly as maat_openskill_rate does.  The defaults of
// dist/constants.js are mu 25, sigma 25/3, beta 25/6, tau 25/300, kappa 1e-4,
// the same as maat_rating_params_default.  Every case passes beta, tau and
// kappa explicitly all the same, so the table says what was computed.
'use strict';
let openskill;
try {
  openskill = require('openskill');
} catch (e) {
  const { createRequire } = require('module');
  openskill = createRequire(process.cwd() + '/')('openskill');
}
const { rate } = openskill;

const D = { beta: 25 / 6, tau: 25 / 300, kappa: 1e-4 };
// [label, params, ranks, [[mu, sigma], ...]]
const cases = [
  ['2p default', D, [1, 2], [[25, 25 / 3], [25, 25 / 3]]],
  ['2p upset', D, [2, 1], [[35, 3], [18, 6]]],
  ['2p tie', D, [1, 1], [[30, 5], [20, 7]]],
  ['3p tie first', D, [1, 1, 3], [[27, 6], [24, 8], [29, 2.5]]],
  ['3p reversed', D, [3, 2, 1], [[25, 25 / 3], [25, 25 / 3], [25, 25 / 3]]],
  ['3p tie last', D, [1, 2, 2], [[22, 4], [31, 7.5], [25, 1]]],
  ['4p tie middle', D, [1, 2, 2, 4], [[25, 25 / 3], [28, 4], [19, 6], [33, 2]]],
  ['4p all tie', D, [1, 1, 1, 1], [[20, 3], [25, 5], [30, 7], [35, 9]]],
  ['4p reversed', D, [4, 3, 2, 1], [[40, 1.5], [30, 2.5], [20, 3.5], [10, 4.5]]],
  ['5p ties', D, [2, 1, 1, 3, 5], [[25, 8], [26, 7], [21, 3], [29, 5], [24, 6.5]]],
  ['5p strict', D, [1, 2, 3, 4, 5], [[15, 8], [20, 2], [25, 5], [30, 6], [35, 7]]],
  ['5p two ties', D, [3, 3, 1, 2, 2], [[25, 25 / 3], [25, 25 / 3], [25, 25 / 3], [25, 25 / 3], [25, 25 / 3]]],
  ['5p low sigma', D, [5, 4, 3, 2, 1], [[26, 0.8], [25, 0.9], [24, 1.0], [23, 1.1], [22, 1.2]]],
  ['3p custom params', { beta: 3, tau: 0.5, kappa: 1e-4 }, [2, 1, 3], [[20, 4], [26, 9], [23, 2]]],
  ['4p tau 0', { beta: 25 / 6, tau: 0, kappa: 1e-4 }, [1, 3, 2, 3], [[25, 25 / 3], [22, 6], [27, 5], [30, 1]]],
];

const num = (x) => String(x);
for (const [label, p, ranks, start] of cases) {
  const teams = start.map(([mu, sigma]) => [{ mu, sigma }]);
  const out = rate(teams, { rank: ranks, beta: p.beta, tau: p.tau, kappa: p.kappa });
  console.log(`    /* ${label} */`);
  console.log(`    {${ranks.length}, ${num(p.beta)}, ${num(p.tau)}, ${num(p.kappa)},`);
  console.log(`     {${ranks.join(', ')}},`);
  console.log(`     {${start.map(([m, s]) => `{${num(m)}, ${num(s)}}`).join(', ')}},`);
  console.log(`     {${out.map(([r]) => `{${num(r.mu)}, ${num(r.sigma)}}`).join(',\n      ')}}},`);
}
