// Search: one box with the qualifier language, kind switch, results with keyset paging.

import {get} from '../api.js';
import {eventHref, h, replace, status, table, when} from '../dom.js';
import {nextPage, showError} from '../ui.js';

const EXAMPLES = [
  ['ORD-1042', 'an aggregate (business) id, e.g. an order number'],
  ['aggregate:ORDER/ORD-1042', 'aggregate type and id'],
  ['event_no:ORDER_CREATED:ORD-1042', 'the idempotency key'],
  ['trace:4bf92f3577b34da6', 'a trace id'],
  ['status:dead', 'one or more statuses: pending, publishing, published, failed, cancelled, dead'],
  ['type:ORDER_PAID topic:orders', 'event type, topic (channel: too)'],
  ['status:dead after:2h', 'created in the last two hours (after:/before: take dates too)'],
  ['error:"connection refused"', 'text of the last failure'],
  ['attempts>=3', 'failed attempts so far']
];

export async function render(el, r) {
  const kind = r.params.get('kind') === 'message' ? 'message' : 'outbox';
  const q = r.params.get('q') || '';
  const input = h('input', {type: 'search', id: 'search-input', 'data-test': 'search-input', value: q,
    placeholder: 'ORD-1042   or   status:dead topic:orders after:2h', autocomplete: 'off', spellcheck: 'false'});
  const select = h('select', {id: 'kind-select', 'data-test': 'kind-select'},
    h('option', {value: 'outbox', selected: kind === 'outbox'}, 'outbox'),
    h('option', {value: 'message', selected: kind === 'message'}, 'message events'));
  const results = h('div', {'data-test': 'search-results'});
  const form = h('form', {class: 'search', 'data-test': 'search-form', onsubmit: e => {
    e.preventDefault();
    location.hash = '#/search?kind=' + select.value + '&q=' + encodeURIComponent(input.value.trim());
  }}, select, input, h('button', {type: 'submit', class: 'primary', 'data-test': 'search-button'}, 'Search'));
  const help = h('details', {class: 'help', 'data-test': 'search-help', open: q === ''},
    h('summary', null, 'How to search'),
    h('p', null, 'Every qualifier must hold; values with spaces go in quotes. Click an example to use it.'),
    h('ul', null, EXAMPLES.map(([ex, what]) => h('li', null,
      h('a', {href: '#/search?kind=' + kind + '&q=' + encodeURIComponent(ex)}, h('code', null, ex)), ' — ', what))));
  replace(el, h('h1', {'data-test': 'page-title'}, 'Search'), form, help, results);
  input.focus();
  if (q === '') return;
  const load = async (after, append) => {
    try {
      const page = await get('api/search', {kind, q, limit: 50, after});
      show(results, page, kind, q, append, load);
    } catch (e) {
      if (e.field) {
        replace(results, h('p', {class: 'notice error', 'data-test': 'search-warning'}, e.message));
      } else {
        showError(e);
      }
    }
  };
  await load(null, false);
}

function row(e) {
  return h('tr', {'data-test': 'result-row', 'data-event-no': e.eventNo, class: 'row-' + e.status.toLowerCase()},
    h('td', null, status(e.status)),
    h('td', null, h('a', {href: eventHref(e.kind, e.eventNo), 'data-test': 'result-link'}, e.eventNo)),
    h('td', null, e.keyType + ' / ', h('strong', null, e.key)),
    h('td', null, e.eventType),
    h('td', null, e.route || e.channel || ''),
    h('td', {class: 'n'}, e.retryCount + ' / ' + e.maxRetryCount),
    h('td', {class: 'reason'}, e.failReason || ''),
    h('td', null, when(e.createTime)));
}

function show(results, page, kind, q, append, load) {
  const warnings = page.warnings.map(w => h('p', {class: 'notice warn', 'data-test': 'search-warning'}, w));
  if (!page.complete) {
    warnings.push(h('p', {class: 'notice warn', 'data-test': 'search-warning'},
      'This page stopped after reading ' + page.examined + ' index entries: more may match. Narrow the search or page on.'));
  }
  let tbody = results.querySelector('tbody');
  if (!append || !tbody) {
    const t = table(['status', 'event no', 'aggregate', 'type', 'topic', 'attempts', 'last error', 'created'],
      page.items.map(row), {class: 'results'});
    replace(results, warnings,
      page.items.length === 0 ? h('p', {class: 'muted', 'data-test': 'search-empty'}, 'Nothing matches.') : t,
      h('div', {class: 'pager'}, nextPage(page.nextCursor, c => load(c, true)),
        h('a', {href: '#/bulk?kind=' + kind + '&q=' + encodeURIComponent(q), 'data-test': 'bulk-from-search'},
          'Retry or cancel everything that matches…'),
        page.driver ? h('span', {class: 'muted'}, ' index: ' + page.driver) : null));
  } else {
    for (const item of page.items) tbody.append(row(item));
    const pager = results.querySelector('.pager');
    const old = pager.querySelector('[data-test="next-page"]');
    if (old) old.remove();
    const next = nextPage(page.nextCursor, c => load(c, true));
    if (next) pager.prepend(next);
    for (const w of warnings) results.prepend(w);
  }
}
