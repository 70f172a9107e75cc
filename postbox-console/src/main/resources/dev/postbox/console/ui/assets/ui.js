// What every page shares: the error banner and the "ask a reason, act, show what changed" flow.

import {post} from './api.js';
import {askReason} from './dialog.js';
import {h, replace} from './dom.js';

export function showError(e) {
  const banner = document.getElementById('banner');
  if (!e) { banner.hidden = true; banner.textContent = ''; return; }
  banner.textContent = (e.status ? e.status + ' ' : '') + (e.message || String(e));
  banner.hidden = false;
}

/**
 * Asks for a reason, POSTs `body` + reason to `path`, and shows the answer's message in `out`.
 * Resolves to the API's answer, or null when the person backed out or the API refused.
 */
export async function act({title, text, confirm, path, body, out}) {
  const reason = await askReason(title, text, confirm);
  if (reason === null) return null;
  try {
    const r = await post(path, Object.assign({}, body || {}, {reason}));
    if (out) {
      replace(out, h('div', {class: 'notice ok', 'data-test': 'action-result'},
        r.message || ('changed: ' + r.changed), r.auditId ? h('span', {class: 'muted'}, ' (audit #' + r.auditId + ')') : null));
    }
    return r;
  } catch (e) {
    if (out) {
      replace(out, h('div', {class: 'notice error', 'data-test': 'action-error'},
        (e.status ? e.status + ': ' : '') + e.message));
    } else {
      showError(e);
    }
    return null;
  }
}

/** A "Next page" button that calls `load(cursor)`, or nothing on the last page. */
export function nextPage(cursor, load) {
  if (!cursor) return null;
  return h('button', {type: 'button', 'data-test': 'next-page', onclick: () => load(cursor)}, 'Next page →');
}
