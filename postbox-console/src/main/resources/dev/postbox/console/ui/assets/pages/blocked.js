// Blocked aggregates: each aggregate whose head is DEAD or FAILED, what waits behind it, and the three fixes.

import {get, may, seg} from '../api.js';
import {eventHref, h, replace, status, table, when} from '../dom.js';
import {act, nextPage} from '../ui.js';

export async function render(el) {
  const out = h('div', {class: 'action-out'});
  const list = h('div');
  replace(el, h('h1', {'data-test': 'page-title'}, 'Blocked aggregates'),
    h('p', {class: 'muted'}, 'The relay publishes nothing of an aggregate after a DEAD or FAILED head until the head is published, retried or cancelled.'),
    out, list);
  const load = async (after) => {
    const page = await get('api/blocked', {limit: 50, after});
    const rows = page.items.map(b => row(b, out, () => load(null)));
    if (!after) {
      replace(list, page.items.length === 0 ? h('p', {class: 'notice ok', 'data-test': 'blocked-empty'}, 'No aggregate is blocked.') :
        table(['aggregate', 'head', 'status', 'attempts', 'last error', 'waiting behind', 'since', ''], rows, {class: 'results'}),
        h('div', {class: 'pager'}, nextPage(page.nextCursor, load)));
    } else {
      list.querySelector('tbody').append(...rows);
      const pager = list.querySelector('.pager');
      replace(pager, nextPage(page.nextCursor, load));
    }
  };
  await load(null);
}

function row(b, out, reload) {
  const head = b.head;
  const headPath = 'api/events/outbox/' + seg(head.eventNo);
  const buttons = [];
  if (may('RETRY')) {
    buttons.push(h('button', {type: 'button', class: 'primary', 'data-test': 'retry-head-button', onclick: async () => {
      if (await act({title: 'Retry the head of ' + b.aggregateType + ' / ' + b.aggregateId, text: head.eventNo + ' becomes PENDING again; the events behind it follow once it is published.',
        confirm: 'Retry head', path: headPath + '/retry', out})) await reload();
    }}, 'Retry head'));
  }
  if (may('CANCEL')) {
    buttons.push(h('button', {type: 'button', 'data-test': 'cancel-head-button', onclick: async () => {
      if (await act({title: 'Cancel the head of ' + b.aggregateType + ' / ' + b.aggregateId, text: head.eventNo + ' will never be delivered; the ' + b.waitingBehind + ' event(s) behind it are released.',
        confirm: 'Cancel head', path: headPath + '/cancel', out})) await reload();
    }}, 'Cancel head'));
    buttons.push(h('button', {type: 'button', class: 'danger', 'data-test': 'cancel-sequence-button', onclick: async () => {
      if (await act({title: 'Cancel the whole sequence of ' + b.aggregateType + ' / ' + b.aggregateId, text: 'The head and every unfinished event behind it will never be delivered.',
        confirm: 'Cancel sequence', path: 'api/aggregates/' + seg(b.aggregateType) + '/' + seg(b.aggregateId) + '/cancel', out})) await reload();
    }}, 'Cancel sequence'));
  }
  return h('tr', {'data-test': 'blocked-row', 'data-aggregate': b.aggregateType + '/' + b.aggregateId},
    h('td', {class: 'key'}, b.aggregateType + ' / ', h('strong', null, b.aggregateId)),
    h('td', {class: 'key'}, h('a', {href: eventHref('outbox', head.eventNo)}, head.eventNo)),
    h('td', null, status(head.status)),
    h('td', {class: 'n'}, head.retryCount + ' / ' + head.maxRetryCount),
    h('td', {class: 'reason'}, head.failReason || ''),
    h('td', {class: 'n'}, (b.capped ? b.waitingBehind + '+' : String(b.waitingBehind))),
    h('td', null, when(head.updateTime || head.createTime)),
    h('td', {class: 'buttons'}, buttons));
}
