// Small DOM helpers. Text is always set as text (never innerHTML), so nothing an event carries can run as markup.

/** h('a', {href: '#/x', 'data-test': 'link', onclick: fn}, 'text', child, ...) */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element with attributes (no style attributes: the CSP forbids inline styles). */
export function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined) el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') {
      el.addEventListener(k.substring(2), v);
    } else if (k === 'class') {
      el.className = v;
    } else if (k === 'value') {
      el.value = v;
    } else if (v === true) {
      el.setAttribute(k, '');
    } else {
      el.setAttribute(k, String(v));
    }
  }
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces everything in `el` with `children`. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** "2026-03-08 09:59:59Z" from an ISO instant; "" for null. */
export function time(iso) {
  if (!iso) return '';
  return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

/** "4 min", "2 h 5 min" for milliseconds. */
export function age(ms) {
  if (ms === null || ms === undefined) return '–';
  const s = Math.round(ms / 1000);
  if (s < 60) return s + ' s';
  const m = Math.floor(s / 60);
  if (m < 60) return m + ' min';
  const hrs = Math.floor(m / 60);
  if (hrs < 48) return hrs + ' h ' + (m % 60) + ' min';
  return Math.floor(hrs / 24) + ' d';
}

/** A time with its age relative to now, for tables. */
export function when(iso) {
  if (!iso) return '';
  const ms = Date.now() - Date.parse(iso);
  return h('span', {title: iso}, time(iso), ms >= 0 ? h('span', {class: 'muted'}, ' (' + age(ms) + ' ago)') : null);
}

/** A status as a coloured badge. */
export function status(s) {
  return h('span', {class: 'status status-' + String(s).toLowerCase(), 'data-test': 'status'}, s);
}

/** The hash link of an event's detail page. */
export function eventHref(kind, eventNo) {
  return '#/event/' + String(kind).toLowerCase() + '/' + encodeURIComponent(eventNo);
}

export function table(headers, rows, attrs) {
  return h('table', attrs || {},
    h('thead', null, h('tr', null, headers.map(x => h('th', null, x)))),
    h('tbody', null, rows));
}
