// Overview: backlog cards, charts of the last hour, relays and workers, problems; refreshes itself.

import {get} from '../api.js';
import {latency, throughput} from '../chart.js';
import {age, h, replace, table, when} from '../dom.js';
import {showError} from '../ui.js';

const REFRESH_MS = 10000;
let timer = null;

export function leave() {
  if (timer) clearInterval(timer);
  timer = null;
}

export async function render(el) {
  const body = h('div', {'data-test': 'overview'});
  const auto = h('input', {type: 'checkbox', id: 'auto-refresh', 'data-test': 'auto-refresh', checked: true});
  const stamp = h('span', {class: 'muted', 'data-test': 'last-refresh'});
  replace(el,
    h('div', {class: 'page-head'}, h('h1', {'data-test': 'page-title'}, 'Overview'),
      h('label', {class: 'inline'}, auto, ' refresh every 10 s'), stamp),
    body);
  const load = async () => {
    try {
      const o = await get('api/overview');
      draw(body, o);
      replace(stamp, 'read ', when(o.readAt));
      showError(null);
    } catch (e) {
      showError(e);
    }
  };
  await load();
  leave();
  timer = setInterval(() => { if (auto.checked && !document.hidden) load(); }, REFRESH_MS);
}

function card(title, kind, b, href) {
  const cls = b.dead > 0 ? 'card bad' : (b.failed > 0 ? 'card warn' : 'card');
  return h('a', {class: cls, href, 'data-test': 'backlog-card', 'data-kind': kind},
    h('h2', null, title),
    h('div', {class: 'nums'},
      num('pending', b.pending), num(kind === 'outbox' ? 'publishing' : 'processing', b.inProgress),
      num('failed', b.failed), num('DEAD', b.dead, 'backlog-dead', b.dead > 0 ? 'dead' : '')),
    h('p', {'data-test': 'backlog-oldest'}, 'oldest unfinished: ',
      h('strong', null, b.oldestUnfinishedAgeMillis === null ? 'none waiting' : age(b.oldestUnfinishedAgeMillis))));
}

function num(label, value, test, cls) {
  return h('div', {class: 'num ' + (cls || '')}, h('span', {class: 'value', 'data-test': test || null}, String(value)),
    h('span', {class: 'label'}, label));
}

function draw(body, o) {
  const problems = o.problems.length === 0
    ? h('p', {class: 'notice ok', 'data-test': 'no-problems'}, 'No problems.')
    : h('ul', {class: 'problems'}, o.problems.map(p =>
      h('li', {class: 'problem ' + p.severity.toLowerCase(), 'data-test': 'problem', 'data-code': p.code},
        h('strong', null, p.severity), ' ', p.message)));
  const instances = o.instances.length === 0
    ? h('p', {class: 'muted'}, 'No relay or worker has reported in the last day.')
    : table(['instance', 'role', 'host', 'alive', 'last seen', 'leases held', 'jobs'],
      o.instances.map(i => h('tr', {'data-test': 'instance-row', class: i.alive ? '' : 'gone'},
        h('td', null, i.instance), h('td', null, i.role), h('td', null, i.host || ''),
        h('td', null, i.alive ? 'yes' : (i.stoppedTime ? 'stopped' : 'NO')),
        h('td', null, when(i.lastSeenTime)), h('td', {class: 'n'}, String(i.leasesHeld)),
        h('td', null, i.jobs.join(', ')))));
  replace(body,
    h('section', {class: 'problems-panel'}, h('h2', null, 'Problems'), problems),
    h('section', {class: 'cards'},
      card('Outbox', 'outbox', o.outbox, '#/search?kind=outbox&q=' + encodeURIComponent('status:dead')),
      card('Message events', 'message', o.messages, '#/search?kind=message&q=' + encodeURIComponent('status:dead')),
      h('a', {class: o.blocked > 0 ? 'card bad' : 'card', href: '#/blocked'},
        h('h2', null, 'Blocked aggregates'),
        h('div', {class: 'nums'}, num('blocked', o.blocked >= 1000 ? '1000+' : o.blocked, 'blocked-count', o.blocked > 0 ? 'dead' : '')),
        h('p', null, 'aggregates whose head is DEAD or FAILED'))),
    h('section', {class: 'charts'}, throughput(o.lastHour), latency(o.lastHour)),
    h('section', null, h('h2', null, 'Relays and workers'), instances));
}
