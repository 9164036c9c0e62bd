/* viewer.js -- the maat replay viewer.  It only draws: every position, and
 * what each seat could see of it, was computed by the game module in C
 * (maat-replay, replay/document.c) and is embedded in the page as JSON.
 * Text from the record or the bots' logs reaches the page only through
 * textContent and SVG text nodes, never as markup.  $, el, sv and NS:
 * ladder/page.js, before this script. */
'use strict';
(function () {
  const D = JSON.parse(document.getElementById('maat-data').textContent);
  const SEAT = ['#c8553d', '#2e86ab', '#8a9b2e', '#8e5ea2', '#d4a017',
                '#3d8a6e', '#b5485d', '#6c757d'];

  /* ---- small DOM helpers (and page.js's) ------------------------------- */
  function tx(parent, x, y, s, attrs) {
    const t = sv(parent, 'text', Object.assign({ x: x, y: y }, attrs || {}));
    t.textContent = String(s);
    return t;
  }
  function svgBox(w, h) {
    return sv(null, 'svg', { viewBox: '0 0 ' + w + ' ' + h, width: w,
                             height: h, role: 'img' });
  }
  function botName(s) {
    const seat = (D.seats || [])[s];
    return seat && typeof seat.bot === 'string' ? seat.bot : 'seat ' + s;
  }

  /* ---- positions: the first, then patches (replay/delta.h) ------------ */
  function patch(base, p) {
    if (Array.isArray(base) && Array.isArray(p['@'])) { /* splice */
      const out = base.slice();
      Array.prototype.splice.apply(out, [p['@'][0], p['@'][1]].concat(p['@'][2]));
      return out;
    }
    const out = Array.isArray(base) ? base.slice() : Object.assign({}, base);
    for (const k in p) {
      const v = p[k];
      if (Array.isArray(v)) {
        if (v.length) out[k] = v[0]; else delete out[k];
      } else {
        out[k] = patch(base[k], v);
      }
    }
    return out;
  }
  const streams = D.streams.map(function (s) {
    const out = [s[0]];
    for (let i = 1; i < s.length; i++)
      out.push(s[i] === null ? out[i - 1] : patch(out[i - 1], s[i]));
    return out;
  });
  const decisions = D.decisions || [];
  const N = streams[0].length; /* positions: the deal, then each decision */
  let step = 0, view = 0, timer = null;

  /* ---- words ----------------------------------------------------------- */
  const GODS = ['', 'Horus', 'Anubis', 'Khepri', 'Sekhmet', 'Thoth'];
  function describe(a) {
    if (!a || typeof a !== 'object') return '?';
    switch (a.kind) {
    case 'god': return 'takes God tile ' + a.tile + ' ' + (GODS[a.tile] || '');
    case 'pair': return 'takes pair ' + a.index;
    case 'build': return 'builds card ' + a.card + ' at stage ' + a.stage +
        ', position ' + a.pos + (a.tomb != null ? '; tomb ' + a.tomb : '') +
        (a.obelisk != null ? '; obelisk ' + a.obelisk : '');
    case 'keep': return 'keeps card ' + a.card;
    case 'remove': return 'removes the cube at (' + a.x + ', ' + a.y + ', ' + a.z + ')';
    case 'take': return 'takes common space ' + a.space;
    case 'place': return 'places stone ' + a.large + ' at level ' + a.level +
        ', position ' + a.pos + (a.rotated ? ', rotated' : '');
    case 'small': return 'puts small stone ' + a.small + (a.to === 'collection'
        ? ' into the collection' : ' at level ' + a.level + ' ' + a.side);
    case 'card': return 'takes card ' + a.card;
    }
    return JSON.stringify(a);
  }
  function eventText(e) {
    const parts = [];
    for (const k in e) {
      if (k === 'event' || k === 'seen_by') continue;
      const v = e[k];
      parts.push(k + ' ' + (typeof v === 'object' ? JSON.stringify(v) : v));
    }
    return (e.event || '?') + (parts.length ? ': ' + parts.join(', ') : '');
  }
  function usText(us) {
    return us >= 1000 ? (us / 1000).toFixed(us >= 100000 ? 0 : 1) + ' ms' : us + ' µs';
  }

  /* ================= Pyramids ============================================ */
  const PYR_STONE = { B: '#2f6fd6', W: '#f3efe4', R: '#d23b2e', G: '#2f9a4c',
                      Y: '#eec22f' };
  function pyrGlyph(g, kind, x, y, r) {
    if (!kind) return;
    sv(g, 'circle', { cx: x, cy: y, r: r, fill: '#fff', stroke: '#333',
                      'stroke-width': 0.6 });
    const k = r * 0.62;
    if (kind === 'pyramid')
      sv(g, 'path', { d: 'M' + (x - k) + ' ' + (y + k * 0.7) + 'L' + x + ' ' +
                      (y - k) + 'L' + (x + k) + ' ' + (y + k * 0.7) + 'Z',
                      fill: '#b8862b' });
    else if (kind === 'obelisk')
      sv(g, 'path', { d: 'M' + (x - k * 0.35) + ' ' + (y + k) + 'L' +
                      (x - k * 0.2) + ' ' + (y - k * 0.6) + 'L' + x + ' ' +
                      (y - k) + 'L' + (x + k * 0.2) + ' ' + (y - k * 0.6) +
                      'L' + (x + k * 0.35) + ' ' + (y + k) + 'Z',
                      fill: '#6b4b2a' });
    else
      sv(g, 'rect', { x: x - k, y: y - k * 0.55, width: 2 * k, height: k * 1.3,
                      rx: k * 0.3, fill: '#3c3c3c' });
  }
  /* One card: its stones left to right, its glyph, its id. */
  function pyrCard(g, x, y, w, h, id, opts) {
    opts = opts || {};
    const face = D.setup && D.setup.deck && D.setup.deck[id];
    if (!face) { /* face down */
      sv(g, 'rect', { x: x, y: y, width: w, height: h, rx: 3, fill: '#7a5230',
                      stroke: '#4a3018' });
      sv(g, 'rect', { x: x + 3, y: y + 3, width: w - 6, height: h - 6, rx: 2,
                      fill: 'none', stroke: '#c9a46a', 'stroke-width': 0.8 });
      return;
    }
    const stones = String(face[0]);
    const sw = w / stones.length;
    for (let i = 0; i < stones.length; i++)
      sv(g, 'rect', { x: x + i * sw, y: y, width: sw, height: h,
                      fill: PYR_STONE[stones[i]] || '#ccc' });
    sv(g, 'rect', { x: x, y: y, width: w, height: h, rx: 2, fill: 'none',
                    stroke: opts.hl ? '#e4002b' : '#3a332b',
                    'stroke-width': opts.hl ? 2.4 : 1 });
    if (h >= 16) {
      pyrGlyph(g, face[1], x + w - 7, y + 7, 5.5);
      tx(g, x + 3, y + h - 3, id, { 'font-size': 8, fill: '#222',
                                    stroke: '#fff', 'stroke-width': 2,
                                    'paint-order': 'stroke' });
    } else {
      pyrGlyph(g, face[1], x + w - 5, y + h / 2, h / 2 - 0.5);
    }
  }
  function pyrRow(g, x, y, ids, w, h, label, hidden) {
    tx(g, x, y - 4, label, { 'font-size': 11, fill: '#7a7167' });
    if (hidden !== undefined && hidden !== null) {
      for (let i = 0; i < hidden; i++) pyrCard(g, x + i * 10, y, w, h, -1);
      if (!hidden) tx(g, x, y + h / 2 + 4, '-', { 'font-size': 11, fill: '#7a7167' });
      return;
    }
    ids.forEach(function (id, i) { pyrCard(g, x + i * (w + 4), y, w, h, id); });
    if (!ids.length) tx(g, x, y + h / 2 + 4, '-', { 'font-size': 11, fill: '#7a7167' });
  }
  function drawPyramids(st, seat, last) {
    const n = st.seats, cols = 2;
    const PW = 455, PH = 270, W = cols * (PW + 10) + 10;
    const rows = Math.ceil(n / cols);
    const svg = svgBox(W, 150 + rows * (PH + 10));
    const built = {};
    (last || []).forEach(function (e) {
      if (e.event === 'pyramid' || e.event === 'obelisk' || e.event === 'tomb')
        built[e.seat + ':' + e.card] = true;
    });
    /* the table: round, tiles, quarry, deck, discard */
    const top = sv(svg, 'g', {});
    tx(top, 12, 22, 'Round ' + st.round + ' of 10', { 'font-size': 16, 'font-weight': 'bold' });
    tx(top, 12, 40, st.over ? 'the game is over' : 'seat ' + st.to_move + ' (' +
       botName(st.to_move) + ') to ' + ({ god: 'take a God tile', pair: 'take a pair',
       build: 'build', keep: 'keep a card' }[st.decision] || st.decision),
       { 'font-size': 12, fill: '#555' });
    const inPlay = n <= 3 ? 4 : 5;
    const owner = {};
    st.players.forEach(function (p, i) { if (p.god) owner[p.god] = i; });
    for (let t = 1; t <= inPlay; t++) {
      const x = 12 + (t - 1) * 66, y = 52;
      const taken = owner[t] !== undefined, aside = st.set_aside === t;
      sv(top, 'rect', { x: x, y: y, width: 60, height: 38, rx: 6,
        fill: taken ? SEAT[owner[t] % 8] : aside ? '#ddd' : '#f1e2bf',
        stroke: '#8a6d3b', 'stroke-dasharray': aside ? '3 2' : 'none' });
      tx(top, x + 30, y + 16, t, { 'font-size': 13, 'font-weight': 'bold',
        'text-anchor': 'middle', fill: taken ? '#fff' : '#3a2a10' });
      tx(top, x + 30, y + 31, aside ? 'set aside' : GODS[t], { 'font-size': 10,
        'text-anchor': 'middle', fill: taken ? '#fff' : '#3a2a10' });
    }
    tx(top, 12 + inPlay * 66 + 8, 66, 'quarry', { 'font-size': 11, fill: '#7a7167' });
    (st.quarry || []).forEach(function (pair, i) {
      const x = 12 + inPlay * 66 + 8 + i * 122, y = 72;
      tx(top, x, y - 1, '' , {});
      if (pair) {
        pyrCard(top, x, y, 56, 28, pair[0]);
        pyrCard(top, x + 58, y, 56, 28, pair[1]);
      } else {
        sv(top, 'rect', { x: x, y: y, width: 114, height: 28, rx: 3, fill: 'none',
                          stroke: '#bbb', 'stroke-dasharray': '4 3' });
      }
      tx(top, x + 57, y + 42, 'pair ' + i, { 'font-size': 10, 'text-anchor': 'middle', fill: '#7a7167' });
    });
    const dx = W - 190;
    pyrCard(top, dx, 16, 40, 56, -1);
    tx(top, dx + 20, 86, st.deck_size + ' left', { 'font-size': 10, 'text-anchor': 'middle', fill: '#7a7167' });
    const disc = st.discard || [];
    tx(top, dx + 52, 28, 'discard (' + disc.length + ')', { 'font-size': 11, fill: '#7a7167' });
    disc.slice(-6).forEach(function (id, i) {
      pyrCard(top, dx + 52 + (i % 3) * 44, 34 + Math.floor(i / 3) * 22, 42, 18, id);
    });
    if (st.deck && st.deck.length)
      tx(top, 12, 128, 'next from the deck: ' + st.deck.slice(0, 2 * n).join(' '),
         { 'font-size': 11, fill: '#8a5a14' });
    /* the players */
    st.players.forEach(function (p, i) {
      const gx = 10 + (i % cols) * (PW + 10), gy = 140 + Math.floor(i / cols) * (PH + 10);
      const g = sv(svg, 'g', { transform: 'translate(' + gx + ',' + gy + ')' });
      sv(g, 'rect', { x: 0, y: 0, width: PW, height: PH, rx: 8, fill: '#fdfbf6',
        stroke: st.to_move === i ? SEAT[i % 8] : '#e2dbcd',
        'stroke-width': st.to_move === i ? 3 : 1 });
      sv(g, 'rect', { x: 10, y: 10, width: 12, height: 12, rx: 3, fill: SEAT[i % 8] });
      tx(g, 28, 21, 'seat ' + i + ': ' + botName(i) + (i === seat ? ' (this view)' : ''),
         { 'font-size': 13, 'font-weight': 'bold' });
      if (p.god) tx(g, PW - 10, 21, 'tile ' + p.god + ' ' + GODS[p.god],
                    { 'font-size': 11, 'text-anchor': 'end', fill: SEAT[i % 8] });
      /* pyramid: stage s, position q at x = (q - min) W + s W/2 */
      const CW = 62, CH = 32;
      const cards = p.pyramid || [];
      let lo = 0;
      cards.forEach(function (c) { if (c[2] < lo) lo = c[2]; });
      const px = 12, py = 36 + 3 * CH + 6;
      for (let q = 0; q < 4; q++)
        sv(g, 'rect', { x: px + q * CW, y: py, width: CW - 1, height: CH, rx: 2,
                        fill: 'none', stroke: '#e5dccb', 'stroke-dasharray': '3 3' });
      cards.forEach(function (c) {
        pyrCard(g, px + (c[2] - lo) * CW + c[1] * CW / 2, py - c[1] * CH, CW - 1, CH - 1,
                c[0], { hl: built[i + ':' + c[0]] });
      });
      /* obelisk: a column of thin cards, bottom first */
      const ox = 4 * CW + 30, oh = 14;
      tx(g, ox, 36, 'obelisk', { 'font-size': 11, fill: '#7a7167' });
      (p.obelisk || []).forEach(function (id, k) {
        pyrCard(g, ox, py + CH - (k + 1) * (oh + 1), 70, oh, id, { hl: built[i + ':' + id] });
      });
      /* hand and tomb: the cards if this view may see them, else a count */
      const hand = p.hand || (i === st.seat ? st.hand : null);
      const tomb = p.tomb || (i === st.seat ? st.tomb : null);
      pyrRow(g, 12, py + CH + 30, hand || [], 44, 26, 'hand', hand ? null : p.hand_size);
      pyrRow(g, 160, py + CH + 30, tomb || [], 44, 26, 'tomb', tomb ? null : p.tomb_size);
      if (st.scores) scoreLine(g, 12, PH - 10, st.scores[i]);
    });
    return svg;
  }
  function scoreLine(g, x, y, s) {
    if (!s) return;
    const parts = Object.keys(s.parts || {}).map(function (k) { return k + ' ' + s.parts[k]; });
    tx(g, x, y - 13, s.total + ' points, rank ' + s.rank, { 'font-size': 12, 'font-weight': 'bold' });
    tx(g, x, y, parts.join(' · '), { 'font-size': 10, fill: '#555' });
  }

  /* ================= Pyramix ============================================= */
  const PMX = { blue: '#2f6fd6', purple: '#7d4fb5', orange: '#ee8a2a',
                green: '#2f9a4c', none: '#2b2b2b' };
  function shade(hex, f) {
    const n = parseInt(hex.slice(1), 16);
    const c = [n >> 16, (n >> 8) & 255, n & 255].map(function (v) {
      return Math.max(0, Math.min(255, Math.round(f > 0 ? v + (255 - v) * f : v * (1 + f))));
    });
    return 'rgb(' + c.join(',') + ')';
  }
  function pmxSymbol(g, sym, x, y, r, light) {
    const ink = light ? '#fff' : '#222';
    const a = { fill: 'none', stroke: ink, 'stroke-width': r * 0.22, 'stroke-linecap': 'round' };
    if (sym === 'ankh') {
      sv(g, 'ellipse', Object.assign({ cx: x, cy: y - r * 0.45, rx: r * 0.32, ry: r * 0.42 }, a));
      sv(g, 'path', Object.assign({ d: 'M' + x + ' ' + y + 'V' + (y + r) + 'M' + (x - r * 0.55) +
                                        ' ' + (y + r * 0.12) + 'H' + (x + r * 0.55) }, a));
    } else if (sym === 'crane') {
      sv(g, 'path', Object.assign({ d: 'M' + (x - r * 0.8) + ' ' + (y + r * 0.6) + 'L' + x + ' ' +
                                        (y - r * 0.2) + 'L' + (x + r * 0.3) + ' ' + (y - r * 0.8) +
                                        'M' + x + ' ' + (y - r * 0.2) + 'L' + (x + r * 0.7) + ' ' +
                                        (y + r * 0.7) }, a));
    } else if (sym === 'eye') {
      sv(g, 'path', Object.assign({ d: 'M' + (x - r) + ' ' + y + 'Q' + x + ' ' + (y - r * 0.9) + ' ' +
                                        (x + r) + ' ' + y + 'Q' + x + ' ' + (y + r * 0.9) + ' ' +
                                        (x - r) + ' ' + y + 'Z' }, a));
      sv(g, 'circle', { cx: x, cy: y, r: r * 0.25, fill: ink });
    } else if (sym === 'cobra') {
      sv(g, 'path', Object.assign({ d: 'M' + (x - r * 0.6) + ' ' + (y + r * 0.8) + 'C' + (x + r) +
                                        ' ' + (y + r * 0.5) + ' ' + (x - r) + ' ' + (y - r * 0.2) +
                                        ' ' + x + ' ' + (y - r * 0.8) }, a, { stroke: '#f2c230' }));
    } else {
      tx(g, x, y + r * 0.4, '?', { 'font-size': r * 1.3, 'text-anchor': 'middle', fill: '#666' });
    }
  }
  /* Isometric view from above the apex: axis x runs down-right, y
   * down-left, z up; a cube shows its three upper faces (-x, -y, -z),
   * drawn from the bottom layer up so the higher cubes cover the lower. */
  function drawPyramix(st, seat, last) {
    const S = 42, cx = 40 + 5.3 * S, cy = 62 + 6 * S;
    const rowH = st.scores ? 96 : 70, seats = (st.collected || []).length;
    const layersTop = 90 + seats * rowH;
    const svg = svgBox(940, Math.max(62 + 9.5 * S + 26, layersTop + 290));
    const P = function (x, y, z) {
      return [cx + (x - y) * 0.866 * S, cy + (x + y) * 0.5 * S - z * S];
    };
    tx(svg, 12, 22, st.over ? 'The game is over' : 'Removal ' + (st.turn + 1) +
       ': seat ' + st.to_move + ' (' + botName(st.to_move) + ') to remove a cube',
       { 'font-size': 15, 'font-weight': 'bold' });
    tx(svg, 12, 40, st.turn + ' cubes removed', { 'font-size': 12, fill: '#555' });
    const cubes = (st.cubes || []).slice().sort(function (a, b) {
      return (b.x + b.y + b.z) - (a.x + a.y + a.z);
    });
    const g = sv(svg, 'g', {});
    cubes.forEach(function (c) {
      const base = c.colour ? PMX[c.colour] || '#999' : '#cfc8ba';
      const faces = [[[0, 1, 0], [0, 1, 1], [0, 0, 1]], /* -x: spanned by y, z */
                     [[1, 0, 0], [1, 0, 1], [0, 0, 1]], /* -y: by x, z */
                     [[1, 0, 0], [1, 1, 0], [0, 1, 0]]]; /* -z: by x, y */
      const light = [0.18, -0.12, 0];
      faces.forEach(function (f, k) {
        const pts = [[0, 0, 0]].concat(f).map(function (d) {
          return P(c.x + d[0], c.y + d[1], c.z + d[2]).join(',');
        });
        sv(g, 'polygon', { points: pts.join(' '), fill: shade(base, light[k]),
          stroke: c.unrevealed ? '#fff' : '#1d1a16', 'stroke-width': 1,
          'stroke-dasharray': c.unrevealed ? '3 2' : 'none',
          opacity: c.unrevealed ? 0.55 : 1 });
        const m = f[1];
        const mid = P(c.x + m[0] / 2, c.y + m[1] / 2, c.z + m[2] / 2);
        pmxSymbol(g, c.colour ? c.symbol : null, mid[0], mid[1], S * 0.26,
                  c.colour === 'none' || c.colour === 'purple' || c.colour === 'blue');
      });
    });
    (last || []).forEach(function (e) {
      if (e.event !== 'remove') return;
      const pts = [[1, 0, 0], [1, 0, 1], [0, 0, 1], [0, 1, 1], [0, 1, 0], [1, 1, 0]].map(function (d) {
        return P(e.x + d[0], e.y + d[1], e.z + d[2]).join(',');
      });
      sv(svg, 'polygon', { points: pts.join(' '), fill: 'none', stroke: '#e4002b',
                           'stroke-width': 3, 'stroke-dasharray': '6 3' });
    });
    tx(svg, cx, 62 + 9.5 * S + 16, 'seen from above the apex', { 'font-size': 10,
       'text-anchor': 'middle', fill: '#7a7167' });
    pmxLayers(svg, st, 520, layersTop);
    /* what each seat holds */
    const order = ['blue', 'purple', 'orange', 'green', 'none'];
    (st.collected || []).forEach(function (held, i) {
      const x0 = 520, y = 90 + i * rowH;
      sv(svg, 'rect', { x: x0, y: y - 11, width: 11, height: 11, rx: 2, fill: SEAT[i % 8] });
      tx(svg, x0 + 16, y, 'seat ' + i + ': ' + botName(i) + ' holds ' + held.length,
         { 'font-size': 13, 'font-weight': st.to_move === i ? 'bold' : 'normal' });
      held.slice().sort(function (a, b) {
        return order.indexOf(a.colour) - order.indexOf(b.colour) || (a.symbol < b.symbol ? -1 : 1);
      }).forEach(function (c, k) {
        const x = x0 + (k % 20) * 19, yy = y + 8 + Math.floor(k / 20) * 19;
        sv(svg, 'rect', { x: x, y: yy, width: 17, height: 17, rx: 2, fill: PMX[c.colour] || '#999' });
        pmxSymbol(svg, c.symbol, x + 8.5, yy + 8.5, 5.5, c.colour !== 'orange' && c.colour !== 'green');
      });
      if (st.scores) scoreLine(svg, x0, y + 80, st.scores[i]);
    });
    return svg;
  }

  /* Every place layer by layer, as the same projection flattens it: the
   * cubes under the surface too (unrevealed ones as the view knows them). */
  function pmxLayers(svg, st, left, top) {
    const s = 12, at = {};
    (st.cubes || []).forEach(function (c) { at[c.x + ',' + c.y + ',' + c.z] = c; });
    tx(svg, left, top, 'every place, layer by layer (the same projection):',
       { 'font-size': 11, fill: '#7a7167' });
    for (let L = 0; L < 6; L++) {
      const row = Math.floor(L / 3);
      const cx = left + 68 + (L % 3) * 136, cy = top + 80 + row * 140;
      for (let x = 0; x <= L; x++)
        for (let y = 0; x + y <= L; y++) {
          const z = L - x - y, c = at[x + ',' + y + ',' + z];
          const px = cx + (x - y) * 0.866 * s, py = cy + (x + y) * 0.5 * s - z * s + L * s * 0.25;
          /* (the layer's extent is -L s .. L s / 2 about cy: centred) */
          if (!c) {
            sv(svg, 'circle', { cx: px, cy: py, r: s * 0.78, fill: 'none', stroke: '#d8d0c0',
                                'stroke-dasharray': '2 2' });
            continue;
          }
          sv(svg, 'circle', { cx: px, cy: py, r: s * 0.86, fill: c.colour ? PMX[c.colour] : '#cfc8ba',
                              stroke: c.unrevealed ? '#fff' : '#1d1a16', 'stroke-width': 0.8,
                              opacity: c.unrevealed ? 0.55 : 1 });
          pmxSymbol(svg, c.colour ? c.symbol : null, px, py, s * 0.5,
                    c.colour === 'none' || c.colour === 'purple' || c.colour === 'blue');
        }
      tx(svg, cx, cy + 74,
         'layer ' + L + (L === 0 ? ' (apex)' : L === 5 ? ' (tray)' : ''),
         { 'font-size': 10, 'text-anchor': 'middle', fill: '#7a7167' });
    }
  }

  /* ================= Architects ========================================= */
  const ARC = { blue: '#4a78c2', brown: '#8b5a2b', yellow: '#e2b83c', white: '#efebe0' };
  function arcSymbol(g, sym, x, y, r) {
    const a = { fill: 'none', stroke: '#1d1a16', 'stroke-width': 1.3 };
    if (sym === 'ankh') {
      sv(g, 'ellipse', Object.assign({ cx: x, cy: y - r * 0.45, rx: r * 0.3, ry: r * 0.4 }, a));
      sv(g, 'path', Object.assign({ d: 'M' + x + ' ' + y + 'V' + (y + r) + 'M' + (x - r * 0.5) + ' ' + (y + 0.1 * r) + 'H' + (x + r * 0.5) }, a));
    } else if (sym === 'eye') {
      sv(g, 'path', Object.assign({ d: 'M' + (x - r) + ' ' + y + 'Q' + x + ' ' + (y - r) + ' ' + (x + r) + ' ' + y + 'Q' + x + ' ' + (y + r) + ' ' + (x - r) + ' ' + y }, a));
      sv(g, 'circle', { cx: x, cy: y, r: r * 0.25, fill: '#1d1a16' });
    } else if (sym === 'scarab') {
      sv(g, 'ellipse', Object.assign({ cx: x, cy: y, rx: r * 0.55, ry: r * 0.8 }, a));
      sv(g, 'path', Object.assign({ d: 'M' + x + ' ' + (y - r * 0.8) + 'V' + (y + r * 0.8) }, a));
    } else if (sym === 'feather') {
      sv(g, 'path', Object.assign({ d: 'M' + x + ' ' + (y + r) + 'C' + (x - r) + ' ' + y + ' ' + (x - r * 0.3) + ' ' + (y - r) + ' ' + (x + r * 0.2) + ' ' + (y - r) + 'C' + (x + r * 0.4) + ' ' + y + ' ' + (x + r * 0.2) + ' ' + (y + r * 0.4) + ' ' + x + ' ' + (y + r) }, a));
    } else if (sym === 'sun') {
      sv(g, 'circle', Object.assign({ cx: x, cy: y, r: r * 0.45 }, a));
      for (let k = 0; k < 8; k++) {
        const t = k * Math.PI / 4;
        sv(g, 'path', Object.assign({ d: 'M' + (x + Math.cos(t) * r * 0.65) + ' ' + (y + Math.sin(t) * r * 0.65) + 'L' + (x + Math.cos(t) * r) + ' ' + (y + Math.sin(t) * r) }, a));
      }
    }
  }
  /* A large stone; openings after rotation as doorways on its sides. */
  function arcLarge(g, x, y, w, h, id, rotated, hl) {
    const s = D.setup.large && D.setup.large[id];
    if (!s) return;
    sv(g, 'rect', { x: x, y: y, width: w, height: h, rx: 2, fill: ARC[s[0]] || '#ccc',
                    stroke: hl ? '#e4002b' : '#3a332b', 'stroke-width': hl ? 2.4 : 1 });
    let open = { none: 0, left: 1, right: 2, both: 3 }[s[1]] || 0;
    if (rotated) open = ((open & 1) << 1) | ((open & 2) >> 1);
    const dh = h * 0.5, dw = w * 0.13;
    if (open & 1) sv(g, 'path', { d: 'M' + x + ' ' + (y + h) + 'v' + (-dh) + 'q' + dw + ' 0 ' + dw + ' ' + dh * 0.3 + 'v' + dh * 0.7 + 'z', fill: '#2b211a' });
    if (open & 2) sv(g, 'path', { d: 'M' + (x + w) + ' ' + (y + h) + 'v' + (-dh) + 'q' + (-dw) + ' 0 ' + (-dw) + ' ' + dh * 0.3 + 'v' + dh * 0.7 + 'z', fill: '#2b211a' });
    if (s[2]) sv(g, 'rect', { x: x + w / 2 - 9, y: y + h - 11, width: 18, height: 7, rx: 3.5,
                             fill: '#caa24a', stroke: '#5b4312' });
    if (s[3]) arcSymbol(g, s[3], x + w / 2, y + h * 0.34, h * 0.24);
    tx(g, x + 3, y + 9, id, { 'font-size': 7.5, fill: '#222', stroke: '#fff', 'stroke-width': 2,
                              'paint-order': 'stroke' });
  }
  function arcSmall(g, x, y, w, h, id, hl) {
    const s = D.setup.small && D.setup.small[id];
    if (!s) return;
    sv(g, 'rect', { x: x, y: y, width: w, height: h, rx: 3, fill: ARC[s[0]] || '#ccc',
                    stroke: hl ? '#e4002b' : '#3a332b', 'stroke-width': hl ? 2.2 : 1 });
    for (let k = 0; k < s[1]; k++)
      sv(g, 'circle', { cx: x + w / 2, cy: y + h * (k + 1) / (s[1] + 1), r: Math.min(w, h) * 0.11,
                        fill: s[0] === 'white' || s[0] === 'yellow' ? '#3a332b' : '#fff' });
  }
  function arcPyramid(g, p, x0, yb, W, H, hl) {
    const levels = D.setup.board.levels;
    const at = {};
    (p.pyramid || []).forEach(function (s) { at[s.level + '.' + s.pos] = s; });
    const sm = {};
    (p.smalls || []).forEach(function (s) { sm[s.level + '.' + s.side] = s.small; });
    levels.forEach(function (n, i) {
      const L = i + 1, y = yb - L * H, x = x0 + i * W / 2;
      for (let q = 0; q < n; q++) {
        const s = at[L + '.' + q];
        if (s) arcLarge(g, x + q * W, y, W, H, s.large, s.rotated, hl['L' + s.large]);
        else sv(g, 'rect', { x: x + q * W + 1, y: y + 1, width: W - 2, height: H - 2, rx: 2,
                             fill: '#f7f2e6', stroke: '#ddd2bc', 'stroke-dasharray': '3 3' });
      }
      ['left', 'right'].forEach(function (side) {
        const sx = side === 'left' ? x - W / 2 : x + n * W;
        const id = sm[L + '.' + side];
        if (id !== undefined) arcSmall(g, sx + 2, y + 2, W / 2 - 4, H - 4, id, hl['S' + id]);
        else sv(g, 'rect', { x: sx + 3, y: y + 3, width: W / 2 - 6, height: H - 6, rx: 3,
                             fill: 'none', stroke: '#ddd2bc', 'stroke-dasharray': '2 2' });
      });
    });
    (D.setup.board.spots || []).forEach(function (sp) {
      const a = String(sp[0]).split('.'), b = String(sp[1]).split('.');
      if (a.length < 2 || b.length < 2) return;
      const L = +a[0], q = Math.max(+a[1], +b[1]);
      const x = x0 + (L - 1) * W / 2 + q * W, y = yb - (L - 1) * H - 5;
      sv(g, 'rect', { x: x - 5, y: y - 3, width: 10, height: 7, rx: 1, fill: '#fff', stroke: '#8a5a14' });
    });
    sv(g, 'line', { x1: x0 - W / 2, y1: yb, x2: x0 + (levels[0] + 0.5) * W, y2: yb,
                    stroke: '#8a6d3b', 'stroke-width': 2 });
  }
  function arcCard(g, x, y, id) {
    const kind = D.setup.cards && D.setup.cards[id];
    sv(g, 'rect', { x: x, y: y, width: 70, height: 30, rx: 4, fill: '#f4e3b5', stroke: '#8a6d3b' });
    tx(g, x + 35, y + 13, kind || '?', { 'font-size': 10, 'text-anchor': 'middle', 'font-weight': 'bold' });
    tx(g, x + 35, y + 25, '#' + id, { 'font-size': 8, 'text-anchor': 'middle', fill: '#7a7167' });
  }
  function drawArchitects(st, seat, last) {
    const n = st.seats, cols = 2, PW = 460, PH = 326, W = 940;
    const rows = Math.ceil(n / cols);
    const svg = svgBox(W, 190 + rows * (PH + 10));
    const hl = {};
    (last || []).forEach(function (e) {
      if (e.event === 'place') hl['L' + e.large] = true;
      if (e.event === 'small') hl['S' + e.small] = true;
    });
    tx(svg, 12, 22, st.over ? 'The game is over' : 'Turn ' + (st.turn + 1) + ': seat ' + st.to_move +
       ' (' + botName(st.to_move) + ') to ' + ({ take: 'take a stone', place: 'place the stone taken',
       small: 'place a small stone', card: 'take a card' }[st.decision] || st.decision),
       { 'font-size': 15, 'font-weight': 'bold' });
    /* the common board: space 0 (its stone and the small stones on it) first */
    (st.common || []).forEach(function (id, i) {
      const x = 12 + i * 72, y = 40;
      sv(svg, 'rect', { x: x, y: y, width: 66, height: 50, rx: 5, fill: i === 0 ? '#f6dcd2' : '#efe7d5',
                        stroke: i === 0 ? '#b0452a' : '#b7a583' });
      if (id !== null && id !== undefined) arcLarge(svg, x + 5, y + 6, 56, 32, id, false, false);
      tx(svg, x + 33, y + 48, 'space ' + i, { 'font-size': 8.5, 'text-anchor': 'middle', fill: '#7a7167' });
    });
    (st.space0 || []).forEach(function (id, k) {
      arcSmall(svg, 12 + (k % 10) * 14, 96 + Math.floor(k / 10) * 20, 12, 18, id, false);
    });
    if (st.taken !== null && st.taken !== undefined) {
      tx(svg, 390, 52, 'to place:', { 'font-size': 11, fill: '#7a7167' });
      arcLarge(svg, 390, 58, 56, 32, st.taken, false, false);
    }
    tx(svg, 470, 36, 'face-up cards', { 'font-size': 11, fill: '#7a7167' });
    (st.faceup || []).forEach(function (id, i) {
      if (id !== null && id !== undefined) arcCard(svg, 470 + i * 76, 42, id);
    });
    tx(svg, 470, 96, 'supply ' + st.supply_size + ' · bag ' + st.bag_size + ' · pile ' + st.pile_size +
       (st.pending_cards ? ' · cards owed ' + st.pending_cards : ''), { 'font-size': 11, fill: '#555' });
    if (st.supply) { /* the omniscient view: the secret orders */
      tx(svg, 470, 116, 'next draws (hidden from the seats):', { 'font-size': 10.5, fill: '#8a5a14' });
      st.supply.slice(0, 3).forEach(function (id, k) { arcLarge(svg, 470 + k * 50, 122, 46, 26, id, false, false); });
      st.bag.slice(0, 4).forEach(function (id, k) { arcSmall(svg, 625 + k * 16, 122, 13, 26, id, false); });
      st.pile.slice(0, 2).forEach(function (id, k) { arcCard(svg, 700 + k * 76, 122, id); });
    }
    st.players.forEach(function (p, i) {
      const gx = 10 + (i % cols) * (PW + 10), gy = 180 + Math.floor(i / cols) * (PH + 10);
      const g = sv(svg, 'g', { transform: 'translate(' + gx + ',' + gy + ')' });
      sv(g, 'rect', { x: 0, y: 0, width: PW, height: PH, rx: 8, fill: '#fdfbf6',
        stroke: st.to_move === i ? SEAT[i % 8] : '#e2dbcd', 'stroke-width': st.to_move === i ? 3 : 1 });
      sv(g, 'rect', { x: 10, y: 10, width: 12, height: 12, rx: 3, fill: SEAT[i % 8] });
      tx(g, 28, 21, 'seat ' + i + ': ' + botName(i) + (i === seat ? ' (this view)' : ''),
         { 'font-size': 13, 'font-weight': 'bold' });
      arcPyramid(g, p, 40, 218, 56, 30, hl);
      tx(g, 12, 238, 'hand', { 'font-size': 10.5, fill: '#7a7167' });
      (p.hand || []).forEach(function (id, k) { arcSmall(g, 44 + k * 15, 228, 12, 16, id, false); });
      tx(g, 150, 238, 'collection ' + (p.collection || []).length, { 'font-size': 10.5, fill: '#7a7167' });
      (p.collection || []).forEach(function (id, k) { arcSmall(g, 230 + (k % 14) * 15, 228 + Math.floor(k / 14) * 18, 12, 16, id, hl['S' + id]); });
      (p.cards || []).forEach(function (id, k) { arcCard(g, 12 + k * 76, 250, id); });
      if (st.scores) scoreLine(g, 12, PH - 8, st.scores[i]);
    });
    return svg;
  }

  const DRAW = { pyramids: drawPyramids, pyramix: drawPyramix, architects: drawArchitects };

  /* ---- the page around the board --------------------------------------- */
  function setup() {
    $('title').textContent = D.game + ' · match ' + D.match + ' game ' + D.game_index +
      ' · seed ' + D.seed;
    (D.seats || []).forEach(function (s, i) {
      const span = el('span');
      const chip = el('span', null, 'chip');
      chip.style.background = SEAT[i % 8];
      span.appendChild(chip);
      span.appendChild(document.createTextNode('seat ' + i + ': ' + botName(i)));
      $('seats').appendChild(span);
    });
    (D.warnings || []).forEach(function (w) { $('warnings').appendChild(el('div', 'Warning: ' + w)); });
    const sel = $('view');
    sel.appendChild(new Option('everything (omniscient)', '0'));
    for (let s = 0; s + 1 < streams.length; s++)
      sel.appendChild(new Option('seat ' + s + ': ' + botName(s), String(s + 1)));
    $('slider').max = String(N - 1);
    $('slider').addEventListener('input', function () { go(+this.value); });
    sel.addEventListener('change', function () { view = +this.value; show(); });
    $('first').onclick = function () { go(0); };
    $('last').onclick = function () { go(N - 1); };
    $('prev').onclick = function () { go(step - 1); };
    $('next').onclick = function () { go(step + 1); };
    $('play').onclick = play;
    $('nextfault').onclick = nextFault;
    document.addEventListener('keydown', function (e) {
      if (e.target && e.target.tagName === 'SELECT') return;
      const k = e.key;
      if (k === 'ArrowRight') go(step + 1);
      else if (k === 'ArrowLeft') go(step - 1);
      else if (k === 'Home') go(0);
      else if (k === 'End') go(N - 1);
      else if (k === ' ') play();
      else if (k === 'o') setView(0);
      else if (k === 'f') nextFault();
      else if (/^[0-7]$/.test(k)) setView(+k + 1);
      else return;
      e.preventDefault();
    });
    timeline();
  }
  function setView(v) {
    if (v >= streams.length) return;
    view = v;
    $('view').value = String(v);
    show();
  }
  function go(s) {
    step = Math.max(0, Math.min(N - 1, s));
    show();
  }
  function play() {
    if (timer) { clearInterval(timer); timer = null; $('play').textContent = 'play'; return; }
    if (step === N - 1) step = 0;
    $('play').textContent = 'pause';
    timer = setInterval(function () { if (step >= N - 1) play(); else go(step + 1); }, 450);
  }
  function nextFault() {
    for (let i = step; i < decisions.length; i++)
      if (decisions[i].faults) { go(i + 1); return; }
  }
  /* One bar per decision: its clock use (wall time if recorded, else CPU),
   * in the deciding seat's colour; faults in red; a click goes there. */
  function timeline() {
    const t = $('timeline'), n = decisions.length || 1, h = 46;
    t.setAttribute('viewBox', '0 0 ' + n + ' ' + h);
    t.setAttribute('preserveAspectRatio', 'none');
    let max = 0;
    decisions.forEach(function (d) { max = Math.max(max, d.wall_us || d.cpu_us || 0); });
    decisions.forEach(function (d, i) {
      const us = d.wall_us || d.cpu_us || 0;
      const bh = max ? Math.max(2, (h - 8) * Math.sqrt(us / max)) : 6; /* sqrt: small ones show */
      sv(t, 'rect', { x: i + 0.1, y: h - bh, width: 0.8, height: bh,
                      fill: d.by === 'default' ? '#bbb' : SEAT[d.seat % 8] });
      if (d.faults) sv(t, 'rect', { x: i, y: 0, width: 1, height: 6, fill: '#c0262d' });
    });
    t.appendChild(sv(null, 'rect', { id: 'cursor', x: 0, y: 0, width: 1, height: h,
                                     fill: 'rgba(0,0,0,0.12)' }));
    t.addEventListener('click', function (e) {
      const r = t.getBoundingClientRect();
      go(Math.floor((e.clientX - r.left) / r.width * n) + 1);
    });
    if (!max) {
      const note = tx(t, 1, 14, '', {});
      note.remove();
      t.setAttribute('aria-description', 'no clock use recorded (maat-referee --record-timing)');
    }
  }
  function show() {
    $('slider').value = String(step);
    $('stepno').textContent = step === 0 ? 'the deal' : 'decision ' + (step - 1) +
      ' of ' + decisions.length;
    const c = $('cursor');
    if (c) c.setAttribute('x', String(Math.max(0, step - 1)));
    const st = streams[view][step];
    const seat = view ? view - 1 : -1;
    const d = step > 0 ? decisions[step - 1] : null;
    const events = d ? d.events : D.deal;
    const visible = (events || []).filter(function (e) {
      return !e.seen_by || seat < 0 || e.seen_by.indexOf(seat) >= 0;
    });
    const board = $('board');
    board.textContent = '';
    const draw = DRAW[D.game];
    board.appendChild(draw ? draw(st, seat, visible) : el('pre', JSON.stringify(st, null, 1)));
    side(d, visible, seat);
    scores(st);
  }
  function side(d, events, seat) {
    const box = $('decision');
    box.textContent = '';
    if (!d) {
      box.appendChild(el('h2', 'The deal'));
      box.appendChild(el('div', 'Step through the game with the arrows, the slider or the timeline.', 'muted'));
    } else {
      box.appendChild(el('h2', 'Decision ' + (step - 1) + ': seat ' + d.seat + ' (' + botName(d.seat) + ')'));
      box.appendChild(el('div', d.kind + ': ' + describe(d.action)));
      if (d.by === 'default') box.appendChild(el('div', 'played by the default policy (the bot was out)', 'default'));
      const clock = [];
      if (d.wall_us !== undefined) clock.push('wall ' + usText(d.wall_us));
      if (d.cpu_us !== undefined) clock.push('cpu ' + usText(d.cpu_us));
      box.appendChild(el('div', clock.length ? 'clock: ' + clock.join(', ') : 'clock: not recorded', 'muted'));
      (d.faults || []).forEach(function (f) {
        box.appendChild(el('div', 'FAULT ' + f.kind + ' by ' + f.bot + ' (seat ' + f.seat + '): ' + (f.detail || ''), 'fault'));
      });
      box.appendChild(el('code', JSON.stringify(d.action)));
    }
    if (!d && D.faults && D.faults.length)
      D.faults.forEach(function (f) {
        box.appendChild(el('div', 'FAULT ' + f.kind + ' by ' + f.bot + ' (seat ' + f.seat + '): ' + (f.detail || ''), 'fault'));
      });
    const ev = $('events');
    ev.textContent = '';
    ev.appendChild(el('h2', seat < 0 ? 'Events' : 'Events seat ' + seat + ' saw'));
    const ul = el('ul');
    events.forEach(function (e) {
      ul.appendChild(el('li', eventText(e) + (e.seen_by ? ' (seen by seat ' + e.seen_by.join(', ') + ' only)' : ''),
                        e.seen_by ? 'private' : ''));
    });
    ev.appendChild(ul);
    const logs = $('logs');
    logs.textContent = '';
    const src = d ? d.log : D.log;
    let any = false;
    for (const s in (src || {})) {
      if (seat >= 0 && +s !== seat) continue;
      any = true;
      logs.appendChild(el('h2', 'stderr of seat ' + s + ' (' + botName(+s) + ')'));
      logs.appendChild(el('pre', (src[s] || []).join('\n')));
    }
    if (!any) logs.appendChild(el('div', 'No bot stderr for this decision' +
      (seat >= 0 ? ' from seat ' + seat : '') + ' (maat-replay --log SEAT=FILE).', 'muted'));
  }
  /* The scores with every part, once the game is over. */
  function scores(st) {
    const box = $('scores');
    box.textContent = '';
    if (!st.scores) return;
    box.appendChild(el('h2', 'Final scores'));
    const t = el('table');
    const head = el('tr');
    ['seat', 'bot'].concat(D.score_parts || []).concat(['total', 'game rank', 'match rank']).forEach(function (h) {
      head.appendChild(el('th', h));
    });
    t.appendChild(head);
    st.scores.forEach(function (s, i) {
      const r = (D.result || [])[i] || {};
      const tr = el('tr', null, r.out ? 'out' : '');
      tr.appendChild(el('td', i));
      tr.appendChild(el('td', botName(i) + (r.out ? ' (out)' : '')));
      (D.score_parts || []).forEach(function (p) { tr.appendChild(el('td', (s.parts || {})[p])); });
      const total = el('td', s.total, 'total');
      total.setAttribute('data-seat', String(i));
      tr.appendChild(total);
      tr.appendChild(el('td', s.rank));
      tr.appendChild(el('td', r.rank !== undefined ? r.rank : ''));
      t.appendChild(tr);
    });
    box.appendChild(t);
  }

  setup();
  show();
  window.maatReplay = { positions: N, go: go, view: setView }; /* for tests */
})();
