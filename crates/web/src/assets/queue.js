// The crawl queue with live progress: polled every two seconds while the view is open.

import { api, path } from './api.js';
import { badge, emptyState, errorNotice, field, fill, h, heading, loading, number } from './dom.js';
import { errorText, t } from './i18n.js';

const POLL_MS = 2000;

export async function queueView(view, signal) {
  const table = h('section', { 'aria-label': t('queue.queue') }, loading());
  const status = h('div', { role: 'status' });
  const select = h('select', { name: 'library' });
  const form = h('form', { class: 'panel inline-form' },
    field(t('queue.library'), select, t('queue.library_hint')),
    h('button', { type: 'submit', class: 'primary' }, t('queue.add')), status);
  fill(view, heading(t('queue.title'), t('queue.subtitle')), table, form);

  try {
    const { libraries } = await api('/api/v1/libraries?limit=1000');
    const crawlable = libraries.filter((l) => !l.paused && (l.start_url || l.sitemap_url || l.oai_url || l.use_sitemaps));
    if (crawlable.length === 0) {
      fill(form, h('p', { class: 'muted' }, t('queue.none_crawlable'), h('a', { href: '#/libraries' }, t('queue.add_it')), '.'));
    } else {
      fill(select, ...crawlable.map((l) => h('option', { value: l.id }, `${l.name} (${l.id})`)));
    }
  } catch (error) {
    fill(status, errorNotice(error));
  }
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      await api('/api/v1/queue', { method: 'POST', body: { library: select.value } });
      fill(status, h('p', { class: 'notice ok' }, t('queue.added', { library: select.value })));
      refresh();
    } catch (error) {
      fill(status, errorNotice(error));
    }
  });

  async function refresh() {
    try {
      const queue = await api('/api/v1/queue', { signal });
      fill(table, queueTable(queue, refresh));
    } catch (error) {
      if (error.name !== 'AbortError') fill(table, errorNotice(error));
    }
  }
  await refresh();
  const timer = setInterval(refresh, POLL_MS);
  signal.addEventListener('abort', () => clearInterval(timer));
}

function queueTable(queue, refresh) {
  if (queue.libraries.length === 0) {
    return emptyState(t('queue.empty'), h('p', {}, t('queue.empty_hint')));
  }
  return h('div', { class: 'table-wrap' }, h('table', { class: 'data queue' },
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col', class: 'num' }, '#'), h('th', { scope: 'col' }, t('libraries.library')), h('th', { scope: 'col' }, t('queue.stage')),
      h('th', { scope: 'col' }, t('queue.progress')), h('th', { scope: 'col', class: 'num' }, t('queue.found')),
      h('th', { scope: 'col', class: 'num' }, t('queue.indexed')), h('th', { scope: 'col', class: 'num' }, t('queue.failed')),
      h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, t('queue.actions'))))),
    h('tbody', {}, queue.libraries.map((entry, i) => {
      const total = entry.pages_found || 0;
      const done = (entry.pages_parsed || 0) + (entry.pages_failed || 0);
      return h('tr', {},
        h('td', { class: 'num', 'data-label': '#' }, i + 1),
        h('td', { 'data-label': t('libraries.library') }, h('a', { href: `#/libraries/${path(entry.id)}` }, entry.id)),
        h('td', { 'data-label': t('queue.stage') }, badge(entry.stage)),
        h('td', { 'data-label': t('queue.progress') }, total
          ? h('progress', { max: total, value: Math.min(done, total), 'aria-label': t('queue.pages_of', { library: entry.id, done, total }) })
          : h('span', { class: 'muted' }, t('queue.waiting'))),
        h('td', { class: 'num', 'data-label': t('queue.found') }, number(entry.pages_found)),
        h('td', { class: 'num', 'data-label': t('queue.indexed') }, number(entry.pages_indexed)),
        h('td', { class: 'num', 'data-label': t('queue.failed') }, number(entry.pages_failed)),
        h('td', {}, h('button', { type: 'button', class: 'small danger', onclick: async () => {
          try {
            await api(`/api/v1/queue/${path(entry.id)}`, { method: 'DELETE' });
          } catch (error) {
            alert(errorText(error));
          }
          refresh();
        } }, t('queue.stop'))));
    }))));
}
