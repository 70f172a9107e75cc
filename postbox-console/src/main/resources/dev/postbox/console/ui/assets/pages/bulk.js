// Bulk: an action on everything a search matches, with a mandatory dry run, a cap and a reason; then progress.

import {get, may, post} from '../api.js';
import {askReason} from '../dialog.js';
import {eventHref, h, replace, status, table, when} from '../dom.js';

const POLL_MS = 1000;
let poller = null;

export function leave() {
  if (poller) clearTimeout(poller);
  poller = null;
}

export async function render(el, r) {
  const p = r.params;
  const kind = h('select', {id: 'bulk-kind', 'data-test': 'bulk-kind'},
    h('option', {value: 'outbox', selected: p.get('kind') !== 'message'}, 'outbox'),
    h('option', {value: 'message', selected: p.get('kind') === 'message'}, 'message events'));
  const action = h('select', {id: 'bulk-action', 'data-test': 'bulk-action'},
    h('option', {value: 'retry', selected: p.get('action') !== 'cancel'}, 'retry (DEAD or FAILED → PENDING)'),
    h('option', {value: 'cancel', selected: p.get('action') === 'cancel'}, 'cancel (PENDING, FAILED or DEAD → CANCELLED)'));
  const query = h('input', {type: 'text', id: 'bulk-query', 'data-test': 'bulk-query', value: p.get('q') || 'status:dead',
    spellcheck: 'false', autocomplete: 'off'});
  const cap = h('input', {type: 'number', id: 'bulk-cap', 'data-test': 'bulk-cap', min: 1, max: 10000, value: p.get('cap') || '100'});
  const reason = h('input', {type: 'text', id: 'bulk-reason', 'data-test': 'bulk-reason', maxlength: 500,
    placeholder: 'why (recorded with every change)'});
  const preview = h('div', {'data-test': 'bulk-preview-area'});
  const allowed = may('BULK');
  const request = () => ({kind: kind.value, action: action.value, query: query.value.trim(),
    cap: parseInt(cap.value, 10), reason: reason.value.trim()});
  const form = h('form', {class: 'grid-form', 'data-test': 'bulk-form', onsubmit: async e => {
    e.preventDefault();
    leave();
    const req = request();
    try {
      const pv = await post('api/bulk/preview', req);
      showPreview(preview, pv, req, allowed);
    } catch (err) {
      replace(preview, h('p', {class: 'notice error', 'data-test': 'action-error'}, err.message));
    }
  }},
  h('label', {for: 'bulk-kind'}, 'Events'), kind,
  h('label', {for: 'bulk-action'}, 'Action'), action,
  h('label', {for: 'bulk-query'}, 'Matching'), query,
  h('label', {for: 'bulk-cap'}, 'At most'), cap,
  h('label', {for: 'bulk-reason'}, 'Reason'), reason,
  h('span'), h('button', {type: 'submit', class: 'primary', 'data-test': 'bulk-preview-button', disabled: !allowed},
    'Dry run'));
  replace(el, h('h1', {'data-test': 'page-title'}, 'Bulk action'),
    h('p', {class: 'muted'}, 'A dry run first shows what would change; nothing changes until you confirm.'),
    allowed ? null : h('p', {class: 'notice warn'}, 'You may not run bulk actions on this console.'),
    form, preview);
}

function showPreview(el, pv, req, allowed) {
  const run = h('button', {type: 'button', class: 'danger', 'data-test': 'bulk-run-button',
    disabled: !allowed || pv.matching === 0, onclick: async () => {
      const n = pv.moreThanCap ? pv.request.cap : pv.matching;
      const ok = await askReason(req.action + ' ' + n + ' ' + req.kind + ' event(s)?',
        'Matching "' + req.query + '". This reason goes into the audit log with every change.', 'Run ' + req.action,
        pv.request.reason);
      if (ok === null) return;
      try {
        const started = await post('api/bulk', Object.assign({}, req, {reason: pv.request.reason, token: pv.token}));
        progress(el, started.runId);
      } catch (err) {
        el.append(h('p', {class: 'notice error', 'data-test': 'action-error'}, err.message));
      }
    }}, 'Run it…');
  replace(el, h('section', {class: 'preview', 'data-test': 'bulk-preview'},
    h('h2', null, 'Dry run'),
    h('p', {class: 'lead'}, h('strong', {'data-test': 'bulk-matching'}, pv.moreThanCap ? 'more than ' + pv.request.cap : String(pv.matching)),
      ' event(s) would change, in ', h('strong', {'data-test': 'bulk-aggregates'}, String(pv.aggregates)), ' aggregate(s).',
      pv.moreThanCap ? ' It stops at the cap of ' + pv.request.cap + '.' : ''),
    pv.warnings.map(w => h('p', {class: 'notice warn', 'data-test': 'bulk-warning'}, w)),
    pv.sample.length === 0 ? null : table(['status', 'event no', 'aggregate', 'type', 'created'],
      pv.sample.map(e => h('tr', {'data-test': 'bulk-sample-row'}, h('td', null, status(e.status)),
        h('td', null, h('a', {href: eventHref(e.kind, e.eventNo)}, e.eventNo)), h('td', null, e.keyType + ' / ' + e.key),
        h('td', null, e.eventType), h('td', null, when(e.createTime))))),
    h('p', {class: 'muted'}, 'This dry run is valid until ', when(pv.expiresAt), '.'),
    run));
}

function progress(el, runId) {
  const box = h('section', {class: 'progress', 'data-test': 'bulk-progress'}, h('h2', null, 'Running'),
    h('p', null, 'Run ' + runId + ' …'));
  replace(el, box);
  const tick = async () => {
    try {
      const r = await get('api/bulk/' + encodeURIComponent(runId));
      const pct = r.planned > 0 ? Math.round(100 * r.changed / r.planned) : (r.status === 'RUNNING' ? 0 : 100);
      replace(box, h('h2', null, 'Bulk ', r.request.action.toLowerCase(), ': ', h('span', {'data-test': 'bulk-status'}, r.status)),
        h('progress', {max: 100, value: pct}),
        h('p', null, r.changed + ' changed of ' + r.planned + ' planned (' + r.examined + ' examined)'),
        r.result ? h('p', {class: 'notice ' + (r.result.status === 'DONE' ? 'ok' : 'error'), 'data-test': 'bulk-result'},
          r.result.changed + ' changed, ' + r.result.skipped + ' skipped (changed meanwhile). ',
          r.result.error ? 'Error: ' + r.result.error + ' ' : '',
          h('a', {href: '#/audit/' + r.result.auditId}, 'audit #' + r.result.auditId)) : null,
        r.error ? h('p', {class: 'notice error', 'data-test': 'bulk-result'}, r.error.message) : null);
      if (r.status === 'RUNNING') poller = setTimeout(tick, POLL_MS);
    } catch (err) {
      box.append(h('p', {class: 'notice error'}, err.message));
    }
  };
  tick();
}
