// Event detail: fields, header names, payload on request, timeline, the aggregate's sequence, consumers,
// related events, compensations, and the Retry / Cancel actions.

import {get, may, post, seg} from '../api.js';
import {askReason} from '../dialog.js';
import {eventHref, h, replace, status, table, time, when} from '../dom.js';
import {act, showError} from '../ui.js';

const RETRYABLE = ['FAILED', 'DEAD'];
const CANCELLABLE = ['PENDING', 'FAILED', 'DEAD'];

export async function render(el, r) {
  const kind = (r.parts[0] || 'outbox').toLowerCase();
  const eventNo = r.parts.slice(1).join('/');
  replace(el, h('p', {class: 'muted'}, 'Loading ', eventNo, '…'));
  const d = await get('api/events/' + seg(kind) + '/' + seg(eventNo));
  draw(el, kind, eventNo, d, h('div', {class: 'action-out'}));
}

function draw(el, kind, eventNo, d, out) {
  const s = d.summary;
  const reload = async () => {
    try {
      draw(el, kind, eventNo, await get('api/events/' + seg(kind) + '/' + seg(eventNo)), out);
    } catch (e) { showError(e); }
  };
  const actions = h('div', {class: 'actions'});
  if (may('RETRY')) {
    actions.append(h('button', {type: 'button', class: 'primary', 'data-test': 'retry-button',
      disabled: !RETRYABLE.includes(s.status),
      title: RETRYABLE.includes(s.status) ? 'Back to PENDING with a fresh set of retries' : 'Only FAILED or DEAD events can be retried',
      onclick: async () => {
        const res = await act({title: 'Retry ' + eventNo, text: 'It becomes PENDING with a fresh set of retries.',
          confirm: 'Retry', path: 'api/events/' + seg(kind) + '/' + seg(eventNo) + '/retry', out});
        if (res) await reload();
      }}, 'Retry'));
  }
  if (may('CANCEL')) {
    actions.append(h('button', {type: 'button', class: 'danger', 'data-test': 'cancel-button',
      disabled: !CANCELLABLE.includes(s.status),
      title: 'It will never be delivered; the events behind it in its aggregate are released',
      onclick: async () => {
        const res = await act({title: 'Cancel ' + eventNo, text: 'It will never be delivered. Later events of its aggregate go on.',
          confirm: 'Cancel the event', path: 'api/events/' + seg(kind) + '/' + seg(eventNo) + '/cancel', out});
        if (res) await reload();
      }}, 'Cancel'));
  }
  const payloadBox = h('div', {class: 'payload-box'});
  if (may('REVEAL_PAYLOAD')) {
    actions.append(h('button', {type: 'button', 'data-test': 'reveal-button', onclick: async () => {
      const reason = await askReason('Reveal the payload of ' + eventNo, 'Who saw it and why is recorded in the audit log.', 'Reveal');
      if (reason === null) return;
      try {
        const p = await post('api/events/' + seg(kind) + '/' + seg(eventNo) + '/payload', {reason});
        replace(payloadBox, h('h3', null, 'Payload'), h('pre', {'data-test': 'payload'}, pretty(p.payload)),
          Object.keys(p.headers).length === 0 ? null : h('div', null, h('h3', null, 'Headers'),
            h('pre', {'data-test': 'payload-headers'}, JSON.stringify(p.headers, null, 2))));
      } catch (e) {
        replace(payloadBox, h('p', {class: 'notice error', 'data-test': 'action-error'}, e.message));
      }
    }}, 'Reveal payload…'));
  }
  const fields = Object.entries(d.fields);
  replace(el,
    h('div', {class: 'page-head'},
      h('h1', {'data-test': 'page-title'}, s.eventNo), status(s.status),
      s.archived ? h('span', {class: 'badge'}, 'archived') : null),
    h('div', {'data-test': 'event-detail', 'data-status': s.status},
      h('p', {class: 'lead'}, s.eventType, ' · ', s.keyType, ' / ', h('strong', null, s.key),
        s.route ? ' · topic ' + s.route : '', ' · attempts ', s.retryCount + ' / ' + s.maxRetryCount),
      s.failReason ? h('p', {class: 'notice error'}, h('strong', null, 'Last error: '), s.failReason) : null,
      actions, out, payloadBox,
      kind === 'outbox' ? sequence(d, s) : null,
      h('div', {class: 'columns'},
        h('section', null, h('h2', null, 'Timeline'),
          d.timeline.length === 0 ? h('p', {class: 'muted'}, 'Nothing recorded.') :
            h('ol', {class: 'timeline'}, d.timeline.map(t => h('li', {'data-test': 'timeline-entry', 'data-kind': t.kind,
              class: 'tl-' + t.kind.toLowerCase()},
              h('span', {class: 'tl-time'}, time(t.time)), ' ', h('strong', null, t.kind),
              t.attempt !== null ? ' #' + t.attempt : '', t.who ? h('span', {class: 'muted'}, ' by ' + t.who) : null,
              t.detail ? h('div', {class: 'tl-detail'}, t.detail) : null,
              t.nextRetry ? h('div', {class: 'muted'}, 'next retry ' + time(t.nextRetry)) : null,
              t.actionId ? h('a', {href: '#/audit/' + t.actionId, class: 'muted'}, ' audit #' + t.actionId) : null)))),
        h('section', null, h('h2', null, 'Fields'),
          table(['field', 'value'], fields.map(([k, v]) => h('tr', {'data-test': 'event-field', 'data-field': k},
            h('th', null, k), h('td', null, v))), {class: 'fields'}),
          h('h3', null, 'Header names'),
          d.headerNames.length === 0 ? h('p', {class: 'muted'}, 'none') :
            h('ul', {class: 'chips'}, d.headerNames.map(n => h('li', {'data-test': 'header-name'}, n))))),
      d.consumers.length === 0 ? null : h('section', null, h('h2', null, 'Consumers'),
        table(['consumer', 'status', 'when'], d.consumers.map(c => h('tr', {'data-test': 'consumer-row'},
          h('td', null, c.consumer), h('td', null, c.status), h('td', null, when(c.time)))))),
      d.related.length === 0 ? null : h('section', null, h('h2', null, kind === 'outbox' ? 'Message events of this business key' : 'Outbox events of this business key'),
        table(['status', 'event no', 'type', 'created'], d.related.map(e => h('tr', {'data-test': 'related-row'},
          h('td', null, status(e.status)), h('td', null, h('a', {href: eventHref(e.kind, e.eventNo)}, e.eventNo)),
          h('td', null, e.eventType), h('td', null, when(e.createTime)))))),
      d.compensations.length === 0 ? null : compensations(d, out)));
}

function sequence(d, s) {
  return h('section', null, h('h2', null, 'Its aggregate, in publication order'),
    d.waitingBehind > 0 ? h('p', {class: 'notice warn', 'data-test': 'waiting-behind'},
      (d.waitingBehind >= 10000 ? '10000+' : d.waitingBehind) + ' unfinished event(s) of ' + s.keyType + ' / ' + s.key + ' come after this one.') : null,
    table(['', 'status', 'event no', 'type', 'created'], d.sequence.map(e => h('tr', {'data-test': 'sequence-row',
      class: e.eventNo === s.eventNo ? 'current' : ''},
      h('td', null, e.eventNo === s.eventNo ? '▶' : ''), h('td', null, status(e.status)),
      h('td', null, e.eventNo === s.eventNo ? h('strong', null, e.eventNo) : h('a', {href: eventHref(e.kind, e.eventNo)}, e.eventNo)),
      h('td', null, e.eventType), h('td', null, when(e.createTime))))));
}

function compensations(d, out) {
  return h('section', null, h('h2', null, 'Compensations of this business key'),
    table(['type', 'key', 'action', 'status', 'attempts', 'last error', ''], d.compensations.map(c =>
      h('tr', {'data-test': 'compensation-row'}, h('td', null, c.bizType), h('td', null, c.bizKey), h('td', null, c.actionType),
        h('td', null, status(c.status)), h('td', {class: 'n'}, String(c.attempts)), h('td', {class: 'reason'}, c.lastError || ''),
        h('td', null, c.status === 'FAILED' && may('RETRY') ? h('button', {type: 'button', 'data-test': 'retry-compensation-button',
          onclick: () => act({title: 'Retry compensation ' + c.actionType + ' of ' + c.bizKey, confirm: 'Retry',
            path: 'api/compensations/retry', body: {bizType: c.bizType, bizKey: c.bizKey, actionType: c.actionType}, out})},
        'Retry') : null)))));
}

function pretty(payload) {
  try { return JSON.stringify(JSON.parse(payload), null, 2); } catch (e) { return payload; }
}
