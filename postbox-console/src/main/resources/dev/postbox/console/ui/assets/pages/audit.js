// Audit: every operator action (who, when, why, on what, how many), filterable; the events one action changed.

import {get} from '../api.js';
import {eventHref, h, replace, table, when} from '../dom.js';
import {nextPage} from '../ui.js';

const ACTIONS = ['', 'RETRY', 'CANCEL', 'CANCEL_SEQUENCE', 'RETRY_COMPENSATION', 'BULK_RETRY', 'BULK_CANCEL', 'REVEAL_PAYLOAD'];

export async function render(el, r) {
  if (r.parts[0]) return changes(el, r.parts[0]);
  const p = r.params;
  const input = (id, test, name, type, placeholder) => h('input', {id, 'data-test': test, name, type: type || 'text',
    value: p.get(name) || '', placeholder: placeholder || '', autocomplete: 'off'});
  const actor = input('audit-actor', 'audit-actor', 'actor');
  const eventNo = input('audit-event-no', 'audit-event-no', 'eventNo');
  const from = input('audit-from', 'audit-from', 'from', 'text', '2026-12-01T00:00:00Z');
  const before = input('audit-before', 'audit-before', 'before', 'text', '2026-12-02T00:00:00Z');
  const action = h('select', {id: 'audit-action', 'data-test': 'audit-action'},
    ACTIONS.map(a => h('option', {value: a, selected: (p.get('action') || '') === a}, a || 'any action')));
  const list = h('div');
  const form = h('form', {class: 'filters', 'data-test': 'audit-form', onsubmit: e => {
    e.preventDefault();
    const q = new URLSearchParams();
    for (const [k, v] of [['actor', actor.value], ['action', action.value], ['eventNo', eventNo.value], ['from', from.value], ['before', before.value]]) {
      if (v.trim() !== '') q.set(k, v.trim());
    }
    location.hash = '#/audit?' + q.toString();
  }},
  h('label', null, 'Who ', actor), h('label', null, 'Action ', action), h('label', null, 'Event no ', eventNo),
  h('label', null, 'From ', from), h('label', null, 'Before ', before),
  h('button', {type: 'submit', class: 'primary', 'data-test': 'audit-search-button'}, 'Filter'));
  replace(el, h('h1', {'data-test': 'page-title'}, 'Audit log'), form, list);
  const params = {actor: p.get('actor'), action: p.get('action'), eventNo: p.get('eventNo'), from: p.get('from'), before: p.get('before')};
  const load = async (after) => {
    const page = await get('api/audit', Object.assign({limit: 50, after}, params));
    const rows = page.items.map(a => h('tr', {'data-test': 'audit-row', 'data-audit-id': String(a.id), 'data-action': a.action},
      h('td', null, when(a.createTime)), h('td', null, h('strong', null, a.actor)), h('td', null, a.action),
      h('td', null, a.target), h('td', {class: 'filter'}, a.filter), h('td', {class: 'reason'}, a.reason),
      h('td', {class: 'n'}, String(a.changed) + (a.dryRunCount !== null ? ' (dry run ' + a.dryRunCount + ')' : '')),
      h('td', null, a.status + (a.error ? ': ' + a.error : '')),
      h('td', null, h('a', {href: '#/audit/' + a.id, 'data-test': 'audit-changes-link'}, 'changes'))));
    if (!after) {
      replace(list, page.items.length === 0 ? h('p', {class: 'muted', 'data-test': 'audit-empty'}, 'No action matches.') :
        table(['when', 'who', 'action', 'on', 'filter', 'reason', 'changed', 'status', ''], rows, {class: 'results'}),
        h('div', {class: 'pager'}, nextPage(page.nextCursor, load)));
    } else {
      list.querySelector('tbody').append(...rows);
      replace(list.querySelector('.pager'), nextPage(page.nextCursor, load));
    }
  };
  await load(null);
}

async function changes(el, id) {
  const list = h('div');
  replace(el, h('h1', {'data-test': 'page-title'}, 'Audit entry #' + id), h('p', null, h('a', {href: '#/audit'}, '← the audit log')), list);
  const load = async (after) => {
    const page = await get('api/audit/' + encodeURIComponent(id) + '/changes', {limit: 100, after});
    const rows = page.items.map(c => h('tr', {'data-test': 'audit-change-row'},
      h('td', null, when(c.time)), h('td', null, c.table),
      h('td', null, eventLink(c)),
      h('td', null, c.action), h('td', null, (c.fromStatus || '?') + ' → ' + (c.toStatus || '?')),
      h('td', null, c.actor), h('td', {class: 'reason'}, c.reason || '')));
    if (!after) {
      replace(list, page.items.length === 0 ? h('p', {class: 'muted', 'data-test': 'audit-empty'}, 'This action changed no event.') :
        table(['when', 'table', 'event no', 'action', 'status', 'who', 'reason'], rows, {class: 'results'}),
        h('div', {class: 'pager'}, nextPage(page.nextCursor, load)));
    } else {
      list.querySelector('tbody').append(...rows);
      replace(list.querySelector('.pager'), nextPage(page.nextCursor, load));
    }
  };
  await load(null);
}

/** A link to the changed event's page; a compensation row has none (its key is shown as it is). */
function eventLink(c) {
  const table = (c.table || '').toLowerCase();
  if (table.includes('compensation')) return c.eventNo;
  return h('a', {href: eventHref(table.includes('message') ? 'message' : 'outbox', c.eventNo)}, c.eventNo);
}
