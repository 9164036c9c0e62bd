/* leaderboard.js -- draws the maat league page from the JSON embedded in it
 * (ladder/leaderboard.c writes both).  Bot names, fault details, log paths
 * and game ids may come from anyone: they reach the page only through
 * textContent, SVG text and attribute values set one by one, never as
 * markup, and a link is made only from the "replays/ID.html" paths the
 * league checked.  $, el and sv: ladder/page.js, before this script. */
'use strict';
(function () {
  const D = JSON.parse(document.getElementById('maat-data').textContent);
  const COLOURS = ['#c8553d', '#2e86ab', '#8a9b2e', '#8e5ea2', '#d4a017',
                   '#3d8a6e', '#b5485d', '#6c757d', '#e07a1f', '#1d5f8a',
                   '#5c8a2e', '#a03e99'];
  const KINDS = ['timeout', 'illegal', 'malformed', 'crash', 'no_hello'];

  function row(table, cells, header) {
    const tr = el('tr');
    for (const c of cells) {
      const td = el(header ? 'th' : 'td');
      if (c instanceof Node) td.appendChild(c);
      else if (c && typeof c === 'object') {
        if (c.node) td.appendChild(c.node); else td.textContent = c.text;
        if (c.cls) td.className = c.cls;
        if (c.title) td.title = c.title;
      } else td.textContent = c === null || c === undefined ? '' : String(c);
      tr.appendChild(td);
    }
    table.appendChild(tr);
    return tr;
  }
  const fix = (x, d) => (typeof x === 'number' ? x.toFixed(d) : '-');
  const numCell = (x, d) => ({ text: fix(x, d), cls: 'n' });
  function link(href, text) {
    if (typeof href !== 'string' || !/^replays\/[A-Za-z0-9._-]+\.html$/.test(href))
      return el('span', text);
    const a = el('a', text);
    a.setAttribute('href', href);
    return a;
  }
  function when(t) {
    if (typeof t === 'number' && t > 0) return new Date(t * 1000).toISOString().replace('.000Z', 'Z');
    return typeof t === 'string' ? t : '';
  }
  const colour = {};
  D.standings.forEach((s, i) => { colour[s.bot] = COLOURS[i % COLOURS.length]; });

  /* ---- header ------------------------------------------------------------ */
  $('title').textContent = D.title;
  $('summary').textContent = D.game + ' \u00b7 ' + D.games + ' ranked game' +
    (D.games === 1 ? '' : 's') + ' \u00b7 ' + D.standings.length + ' bots \u00b7 updated ' +
    when(D.time);

  /* ---- standings ------------------------------------------------------------ */
  const st = $('standings');
  row(st, ['#', 'bot', 'state', 'rating', 'mu', 'sigma', 'games', 'wins',
           'avg rank', 'Elo (2p)', 'faults'], true);
  D.standings.forEach((s, i) => {
    const name = el('span');
    const chip = el('span', null, 'chip');
    chip.style.background = colour[s.bot];
    name.appendChild(chip);
    name.appendChild(document.createTextNode(s.bot));
    const elo = typeof s.elo === 'number'
      ? (s.elo >= 0 ? '+' : '') + s.elo.toFixed(0) + ' \u00b1' + s.elo_ci95.toFixed(0) : '-';
    const tr = row(st, [i + 1, name, { text: s.state, cls: 'state-' + s.state },
                        numCell(s.rating, 2), numCell(s.mu, 2), numCell(s.sigma, 2),
                        numCell(s.games, 0), numCell(s.wins, 0), numCell(s.avg_rank, 2),
                        { text: elo, cls: 'n' },
                        { text: s.fault_total ? String(s.fault_total) : '-',
                          cls: s.fault_total ? 'n fault' : 'n',
                          title: s.first_fault || '' }]);
    tr.dataset.bot = s.bot;
    if (s.state === 'retired') tr.className = 'retired';
  });

  /* ---- rating history ---------------------------------------------------- */
  const hidden = {};
  function drawHistory() {
    const box = $('history');
    box.textContent = '';
    const W = 900, H = 320, L = 50, R = 12, T = 12, B = 34;
    const series = D.standings.filter((s) => !hidden[s.bot] &&
                                       (D.history[s.bot] || []).length);
    /* time along the x axis when the games span 10 minutes or more,
     * else the game's number in the ladder */
    let t0 = Infinity, t1 = -Infinity, timed = series.length > 0;
    for (const s of series)
      for (const p of D.history[s.bot]) {
        timed = timed && p[1] > 0;
        t0 = Math.min(t0, p[1]); t1 = Math.max(t1, p[1]);
      }
    const useTime = timed && t1 - t0 >= 600;
    const X = (p) => (useTime ? p[1] : p[0]);
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const s of series)
      for (const p of D.history[s.bot]) {
        x0 = Math.min(x0, X(p)); x1 = Math.max(x1, X(p));
        y0 = Math.min(y0, p[2] - p[3]); y1 = Math.max(y1, p[2] + p[3]);
      }
    const svg = sv(null, 'svg', { viewBox: '0 0 ' + W + ' ' + H, width: W, height: H,
                                  role: 'img', 'aria-label': 'rating history' });
    box.appendChild(svg);
    if (!series.length) {
      sv(svg, 'text', { x: L, y: H / 2 }).textContent = 'no ranked games yet';
      return;
    }
    if (x1 === x0) { x0 -= 1; x1 += 1; }
    if (y1 - y0 < 1) { y0 -= 0.5; y1 += 0.5; }
    const px = (x) => L + (x - x0) / (x1 - x0) * (W - L - R);
    const py = (y) => T + (y1 - y) / (y1 - y0) * (H - T - B);
    for (let k = 0; k <= 4; k++) { /* axes and grid */
      const y = y0 + (y1 - y0) * k / 4;
      sv(svg, 'line', { x1: L, x2: W - R, y1: py(y), y2: py(y), stroke: '#eee' });
      sv(svg, 'text', { x: L - 6, y: py(y) + 4, 'text-anchor': 'end',
                        'font-size': 11, fill: '#7a7167' }).textContent = y.toFixed(1);
      const x = x0 + (x1 - x0) * k / 4;
      sv(svg, 'text', { x: px(x), y: H - 12, 'font-size': 11, fill: '#7a7167',
                        'text-anchor': k === 0 ? 'start' : k === 4 ? 'end' : 'middle'
                      }).textContent =
        useTime ? when(Math.round(x)).slice(0, 16).replace('T', ' ') : 'game ' + Math.round(x);
    }
    for (const s of series) {
      const pts = D.history[s.bot];
      const up = pts.map((p) => px(X(p)).toFixed(1) + ',' + py(p[2] + p[3]).toFixed(1));
      const down = pts.slice().reverse().map((p) => px(X(p)).toFixed(1) + ',' +
                                             py(p[2] - p[3]).toFixed(1));
      sv(svg, 'polygon', { points: up.concat(down).join(' '), fill: colour[s.bot],
                           'fill-opacity': 0.08, stroke: 'none' });
      const line = sv(svg, 'polyline', {
        points: pts.map((p) => px(X(p)).toFixed(1) + ',' + py(p[2]).toFixed(1)).join(' '),
        fill: 'none', stroke: colour[s.bot], 'stroke-width': 2 });
      line.setAttribute('class', 'series');
      line.dataset.bot = s.bot;
      sv(line, 'title', {}).textContent = s.bot;
    }
  }
  const legend = $('legend');
  for (const s of D.standings) {
    const item = el('span');
    const chip = el('span', null, 'chip');
    chip.style.background = colour[s.bot];
    item.appendChild(chip);
    item.appendChild(document.createTextNode(s.bot));
    item.dataset.bot = s.bot;
    item.addEventListener('click', () => {
      hidden[s.bot] = !hidden[s.bot];
      item.className = hidden[s.bot] ? 'off' : '';
      drawHistory();
    });
    legend.appendChild(item);
  }
  drawHistory();

  /* ---- crosstable --------------------------------------------------------- */
  const ct = $('crosstable'), X = D.crosstable;
  const head = el('tr');
  head.appendChild(el('th'));
  for (const b of X.bots) head.appendChild(el('th', b, 'col'));
  ct.appendChild(head);
  X.bots.forEach((b, i) => {
    const cells = [{ text: b }];
    X.cells[i].forEach((c) => {
      if (!c) { cells.push({ text: '\u00b7', cls: 'n' }); return; }
      const behind = c[0] - c[1] - c[2];
      const cell = { text: c[0] ? c[1] + '\u2013' + behind + (c[2] ? ' (' + c[2] + ')' : '') : '',
                     cls: 'n', title: c[0] + ' games together' };
      cells.push(cell);
    });
    const tr = row(ct, cells);
    [...tr.children].forEach((td, j) => {
      const c = j > 0 ? X.cells[i][j - 1] : null;
      if (c && c[0]) {
        const share = (c[1] + c[2] / 2) / c[0];
        td.style.background = 'rgba(' + (share < 0.5 ? '192,38,45,' : '31,122,61,') +
                              (Math.abs(share - 0.5) * 0.7).toFixed(2) + ')';
      }
    });
  });

  /* ---- faults ------------------------------------------------------------- */
  const ft = $('faults');
  row(ft, ['bot', 'games', 'games with faults'].concat(KINDS, ['first fault']), true);
  for (const s of D.standings)
    row(ft, [s.bot, numCell(s.games, 0), numCell(s.faulty_games, 0)]
      .concat(KINDS.map((k) => ({ text: s.faults[k] ? String(s.faults[k]) : '-',
                                  cls: s.faults[k] ? 'n fault' : 'n' })),
              [s.first_fault || '']));

  /* ---- entries, events ------------------------------------------------------- */
  const et = $('entries');
  row(et, ['entry', 'version', 'bot', 'state', 'details', 'log', 'game'], true);
  for (const e of D.entries)
    row(et, [e.name + (e.remote ? ' (remote)' : ''), numCell(e.version, 0), e.bot,
             { text: e.state, cls: 'state-' + e.state }, e.detail || '',
             e.log ? el('code', e.log) : '',
             e.game ? link(e.replay, e.game) : '']);
  const ev = $('events');
  row(ev, ['time', 'event', 'bot', 'details'], true);
  for (const e of D.events)
    row(ev, [e.time || '', e.event || '', e.bot || e.entry || '', e.detail || '']);

  /* ---- latest games ---------------------------------------------------------- */
  const rt = $('recent');
  row(rt, ['game', 'time', 'seats: rank. bot score'], true);
  for (const g of D.recent) {
    const seats = el('span');
    g.bots.forEach((b, s) => {
      const span = el('span', g.ranks[s] + '. ' + b + ' ' + g.scores[s] +
                      (g.faults[s] ? ' (' + g.faults[s] + ' fault' +
                       (g.faults[s] === 1 ? '' : 's') + ')' : ''),
                      'seat' + (g.ranks[s] === 1 ? ' r1' : ''));
      seats.appendChild(span);
    });
    row(rt, [link(g.replay, g.id), g.time || '', seats]);
  }
  window.maatLeague = { data: D, redraw: drawHistory };
})();
