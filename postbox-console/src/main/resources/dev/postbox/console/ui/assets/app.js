// Postbox console: the UI over the console's JSON API (api/...). Vanilla ES2020 modules, no build step, no
// external URL; hash routing (#/overview, #/search?q=..., #/event/{kind}/{eventNo}, #/blocked, #/bulk?...,
// #/audit?..., #/audit/{id}); every URL relative, so it runs under any mount path.
//
// Stable hooks for tests (data-test attributes), by page:
//   everywhere  nav-overview nav-search nav-blocked nav-bulk nav-audit, me, read-only (badge), error-banner,
//               page-title, status (a status badge), reason-dialog, reason-input, confirm-button, dialog-cancel,
//               action-result (what the last action changed), action-error
//   overview    backlog-card (data-kind=outbox|message), backlog-dead, backlog-oldest, blocked-count,
//               chart-throughput, chart-latency, instance-row, problem, no-problems, last-refresh, auto-refresh
//   search      search-form, search-input, kind-select, search-button, search-help, search-warning,
//               result-row (data-event-no), result-link, next-page, search-empty, bulk-from-search
//   event       event-detail, event-field (data-field), header-name, reveal-button, payload, payload-headers,
//               retry-button, cancel-button, timeline-entry (data-kind), sequence-row (class current on this event),
//               waiting-behind, consumer-row, related-row, compensation-row, retry-compensation-button
//   blocked     blocked-row (data-aggregate), retry-head-button, cancel-head-button, cancel-sequence-button,
//               blocked-empty, next-page
//   bulk        bulk-form, bulk-kind, bulk-action, bulk-query, bulk-cap, bulk-reason, bulk-preview-button,
//               bulk-preview, bulk-matching, bulk-aggregates, bulk-warning, bulk-sample-row, bulk-run-button,
//               bulk-progress, bulk-status, bulk-result
//   audit       audit-form, audit-actor, audit-action, audit-event-no, audit-from, audit-before, audit-search-button,
//               audit-row (data-audit-id), audit-changes-link, audit-change-row, next-page, audit-empty

import {session} from './api.js';
import {h, replace} from './dom.js';
import {showError} from './ui.js';
import * as overview from './pages/overview.js';
import * as search from './pages/search.js';
import * as event from './pages/event.js';
import * as blocked from './pages/blocked.js';
import * as bulk from './pages/bulk.js';
import * as audit from './pages/audit.js';

const view = () => document.getElementById('view');
let current = null;

/** The route of the hash: {page, parts (decoded path segments), params (URLSearchParams)}. */
export function parseHash() {
  const hash = location.hash.replace(/^#\/?/, '');
  const q = hash.indexOf('?');
  const path = q < 0 ? hash : hash.substring(0, q);
  const params = new URLSearchParams(q < 0 ? '' : hash.substring(q + 1));
  const parts = path.split('/').filter(p => p !== '').map(p => { try { return decodeURIComponent(p); } catch (e) { return p; } });
  return {page: parts[0] || 'overview', parts: parts.slice(1), params};
}

const pages = {overview, search, event, blocked, bulk, audit};

async function route() {
  showError(null);
  if (current && current.leave) current.leave();
  const r = parseHash();
  const page = pages[r.page];
  for (const a of document.querySelectorAll('nav a')) {
    a.classList.toggle('active', a.getAttribute('href') === '#/' + (r.page === 'event' ? 'search' : r.page));
  }
  const el = view();
  if (!page) {
    replace(el, h('h1', {'data-test': 'page-title'}, 'Not found'), h('p', null, 'No page ', r.page, '.'));
    current = null;
    return;
  }
  current = page;
  try {
    await page.render(el, r);
  } catch (e) {
    showError(e);
  }
}

async function start() {
  try {
    const me = await session();
    const meEl = document.getElementById('me');
    replace(meEl, h('span', {title: me.permissions.join(', ')}, me.name),
      me.readOnly ? h('span', {class: 'badge', 'data-test': 'read-only'}, 'read-only') : null);
  } catch (e) {
    showError(e);
    replace(view(), h('h1', {'data-test': 'page-title'}, 'Cannot reach the console'),
      h('p', null, e.status === 401 ? 'Sign in again (reload the page).' : String(e.message || e)));
    return;
  }
  window.addEventListener('hashchange', route);
  await route();
}

start();
