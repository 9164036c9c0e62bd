/* page.js -- what every maat page's script starts with (ladder/html.c
 * puts it before the page's own: leaderboard.js, viewer.js).  Text from
 * the data reaches a page only through these: textContent and attributes
 * set one by one, never markup. */
'use strict';
const NS = 'http://www.w3.org/2000/svg';
const $ = (id) => document.getElementById(id);

/* An HTML element, with `text` as its text and `cls` as its class. */
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

/* An SVG element with `attrs`, appended to `parent` when given. */
function sv(parent, tag, attrs) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}
