// The crawl queue with live progress: polled every two seconds while the view is open.

import { api, path } from './api.js';
import { badge, emptyState, errorNotice, field, fill, h, heading, loading, number } from './dom.js';

const POLL_MS = 2000;

export async function queueView(view, signal) {
  const table = h('section', { 'aria-label': 'Queue' }, loading());
  const status = h('div', { role: 'status' });
  const select = h('select', { name: 'library' });
  const form = h('form', { class: 'panel inline-form' },
    field('Library to crawl', select, 'Libraries declared with a start URL, a sitemap or an OAI-PMH address.'),
    h('button', { type: 'submit', class: 'primary' }, 'Add to the queue'), status);
  fill(view, heading('Crawl queue', 'Libraries are crawled one at a time, in order. Progress updates live.'), table, form);

  try {
    const { libraries } = await api('/api/v1/libraries');
    const crawlable = libraries.filter((l) => l.start_url || l.sitemap_url || l.oai_url || l.use_sitemaps);
    if (crawlable.length === 0) {
      fill(form, h('p', { class: 'muted' }, 'No library can be crawled yet: give one a start URL when you ', h('a', { href: '#/libraries' }, 'add it'), '.'));
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
      fill(status, h('p', { class: 'notice ok' }, `${select.value} was added to the queue.`));
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
    return emptyState('The queue is empty.', h('p', {}, 'Queued libraries appear here with their progress; finished ones leave the queue and show "done" among the libraries.'));
  }
  return h('div', { class: 'table-wrap' }, h('table', { class: 'data queue' },
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col', class: 'num' }, '#'), h('th', { scope: 'col' }, 'Library'), h('th', { scope: 'col' }, 'Stage'),
      h('th', { scope: 'col' }, 'Progress'), h('th', { scope: 'col', class: 'num' }, 'Found'),
      h('th', { scope: 'col', class: 'num' }, 'Indexed'), h('th', { scope: 'col', class: 'num' }, 'Failed'),
      h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')))),
    h('tbody', {}, queue.libraries.map((entry, i) => {
      const total = entry.pages_found || 0;
      const done = (entry.pages_parsed || 0) + (entry.pages_failed || 0);
      return h('tr', {},
        h('td', { class: 'num', 'data-label': '#' }, i + 1),
        h('td', { 'data-label': 'Library' }, h('a', { href: `#/libraries/${path(entry.id)}` }, entry.id)),
        h('td', { 'data-label': 'Stage' }, badge(entry.stage)),
        h('td', { 'data-label': 'Progress' }, total
          ? h('progress', { max: total, value: Math.min(done, total), 'aria-label': `${entry.id}: ${done} of ${total} pages` })
          : h('span', { class: 'muted' }, 'waiting')),
        h('td', { class: 'num', 'data-label': 'Found' }, number(entry.pages_found)),
        h('td', { class: 'num', 'data-label': 'Indexed' }, number(entry.pages_indexed)),
        h('td', { class: 'num', 'data-label': 'Failed' }, number(entry.pages_failed)),
        h('td', {}, h('button', { type: 'button', class: 'small danger', onclick: async () => {
          try {
            await api(`/api/v1/queue/${path(entry.id)}`, { method: 'DELETE' });
          } catch (error) {
            alert(error.message);
          }
          refresh();
        } }, 'Stop')));
    }))));
}
