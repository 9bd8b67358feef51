// A library's duplicates: find them (the dedup job, followed and stopped like a re-index), its
// clusters page by page, and two members of a cluster side by side with their shared passages
// (found by checking the canonical record's text against the library).

import { api, path } from './api.js';
import { emptyState, errorNotice, fill, h, loading, number, percent } from './dom.js';
import { renderMarked, reveal } from './highlight.js';
import { t, tn } from './i18n.js';
import { jobPanel } from './job.js';

const PAGE = 20;

export async function duplicatesView(view, id, params) {
  const offset = Math.max(0, Number(params.get('offset')) || 0);
  const list = h('section', { id: 'clusters', 'aria-live': 'polite' }, loading());
  const compare = h('section', { class: 'compare', id: 'compare' });
  fill(view,
    h('nav', { class: 'crumbs', 'aria-label': t('document.breadcrumb') },
      h('a', { href: '#/libraries' }, t('nav.libraries')), ' / ',
      h('a', { href: `#/libraries/${path(id)}` }, id), ' / ',
      h('span', { 'aria-current': 'page' }, t('duplicates.crumb'))),
    h('div', { class: 'page-head' }, h('h1', {}, t('duplicates.title', { library: id })),
      h('p', { class: 'subtitle' }, t('duplicates.subtitle'))),
    // A finished job refreshes the clusters only, so its outcome stays in view.
    dedupPanel(id, () => loadClusters(list, compare, id, offset)),
    list, compare);
  await loadClusters(list, compare, id, offset);
}

async function loadClusters(list, compare, id, offset) {
  try {
    const page = await api(`/api/v1/libraries/${path(id)}/duplicates?limit=${PAGE}&offset=${offset}`);
    showClusters(list, compare, id, page, offset);
  } catch (error) {
    fill(list, errorNotice(error, () => loadClusters(list, compare, id, offset)));
  }
}

function showClusters(list, compare, id, page, offset) {
  if (page.updated_at === null) {
    fill(list, emptyState(t('duplicates.not_yet'), h('p', {}, t('duplicates.not_yet_hint'))));
    return;
  }
  const doc = (docId) => h('a', { href: `#/libraries/${path(id)}/documents/${path(docId)}`, class: 'mono' }, docId);
  const related = relatedPairs(compare, id, page, doc);
  if (page.total === 0) {
    fill(list, emptyState(t('duplicates.none'), h('p', {}, t('duplicates.related', { n: number(page.related) }))), related);
    return;
  }
  const rows = [];
  for (const cluster of page.clusters) {
    cluster.members.forEach((m, i) => rows.push(h('tr', {},
      i === 0 ? h('td', { 'data-label': t('duplicates.canonical'), rowspan: cluster.members.length }, doc(cluster.canonical), h('div', { class: 'muted' }, tn('duplicates.size', cluster.size))) : null,
      h('td', { 'data-label': t('duplicates.member') }, doc(m.doc_id), m.via ? h('div', { class: 'muted' }, t('duplicates.via'), m.via) : null),
      h('td', { 'data-label': t('duplicates.similarity') }, percent(m.similarity)),
      h('td', { 'data-label': t('duplicates.relation') }, t(`duplicates.relation_${m.relation}`, {}, m.relation)),
      h('td', {}, h('button', { type: 'button', class: 'small', onclick: () => sideBySide(compare, id, m.via || cluster.canonical, m.doc_id) }, t('report.compare'))))));
  }
  const table = h('table', { class: 'data' },
    h('caption', {}, `${tn('duplicates.clusters', page.total)} · ${t('duplicates.related_pairs', { n: number(page.related) })}`),
    h('thead', {}, h('tr', {}, h('th', {}, t('duplicates.canonical')), h('th', {}, t('duplicates.member')), h('th', {}, t('duplicates.similarity')), h('th', {}, t('duplicates.relation')), h('th', {}, ''))),
    h('tbody', {}, rows));
  const pager = h('nav', { class: 'pager', 'aria-label': t('reports.pages') },
    offset > 0 ? h('a', { href: `#/libraries/${path(id)}/duplicates?offset=${Math.max(0, offset - PAGE)}` }, t('library.previous')) : null, ' ',
    offset + PAGE < page.total ? h('a', { href: `#/libraries/${path(id)}/duplicates?offset=${offset + PAGE}` }, t('library.next')) : null);
  fill(list, h('div', { class: 'table-wrap' }, table), pager, related);
}

// The pairs that share passages without being duplicates, most similar first, each with a
// button that shows the two side by side.
function relatedPairs(compare, id, page, doc) {
  const pairs = page.related_pairs || [];
  if (pairs.length === 0) return null;
  return h('section', { id: 'related-pairs' },
    h('h2', {}, t('duplicates.related_title')),
    h('p', { class: 'hint' }, pairs.length < page.related
      ? t('duplicates.related_shown', { n: number(pairs.length), total: number(page.related) })
      : t('duplicates.related', { n: number(page.related) })),
    h('div', { class: 'table-wrap' }, h('table', { class: 'data', id: 'related' },
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, t('duplicates.document')),
        h('th', { scope: 'col' }, t('duplicates.document')),
        h('th', { scope: 'col', class: 'num' }, t('duplicates.similarity')),
        h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, t('report.compare'))))),
      h('tbody', {}, pairs.map((pair) => h('tr', {},
        h('td', { 'data-label': t('duplicates.document') }, doc(pair.a)),
        h('td', { 'data-label': t('duplicates.document') }, doc(pair.b)),
        h('td', { class: 'num', 'data-label': t('duplicates.similarity') }, percent(pair.similarity)),
        h('td', {}, h('button', { type: 'button', class: 'small', onclick: () => sideBySide(compare, id, pair.a, pair.b) }, t('report.compare')))))))));
}

// Two documents side by side, the passages they share highlighted in both.
async function sideBySide(compare, id, leftId, rightId) {
  fill(compare, loading());
  try {
    const [left, right] = await Promise.all([
      api(`/api/v1/libraries/${path(id)}/documents/${path(leftId)}`),
      api(`/api/v1/libraries/${path(id)}/documents/${path(rightId)}`),
    ]);
    const report = await api('/api/v1/check', { method: 'POST', body: { text: left.text, libraries: [id], passages: true, lang: left.lang, store: false } });
    const match = report.matches.find((m) => m.doc_id === rightId);
    const passages = (match && match.passages) || [];
    const leftPane = h('div', { class: 'pane-text', id: 'pane-left', tabindex: 0, 'aria-label': leftId });
    const rightPane = h('div', { class: 'pane-text', id: 'pane-right', tabindex: 0, 'aria-label': rightId });
    fill(compare, h('h2', {}, t('duplicates.side_by_side')),
      h('p', { class: 'hint' }, match
        ? t('duplicates.pair', { verdict: t('report.reused', { share: percent(match.containment_doc) }), resemblance: percent(match.resemblance), words: percent(match.word_similarity) })
        : t('duplicates.gone')),
      h('div', { class: 'panes' },
        h('div', { class: 'pane' }, h('h3', {}, left.title || leftId), leftPane),
        h('div', { class: 'pane' }, h('h3', {}, right.title || rightId), rightPane)));
    const activate = (span) => { reveal(leftPane, span.key); reveal(rightPane, span.key); };
    renderMarked(leftPane, left.text, passages.map((p, j) => ({ start: p.query.start, end: p.query.end, source: 0, key: `0-${j}`, label: t('duplicates.shared') })), activate);
    renderMarked(rightPane, right.text, passages.map((p, j) => ({ start: p.doc.start, end: p.doc.end, source: 0, key: `0-${j}`, label: t('duplicates.shared') })), activate);
    compare.scrollIntoView({ behavior: 'smooth', block: 'start' });
  } catch (error) {
    fill(compare, errorNotice(error));
  }
}

// Starts the dedup job and follows it; a job already queued or running is picked up.
function dedupPanel(id, onFinished) {
  return jobPanel({
    library: id,
    kind: 'dedup',
    start: { label: t('duplicates.find'), id: 'find-duplicates', url: `/api/v1/libraries/${path(id)}/dedup` },
    text: {
      stop: () => t('queue.stop'),
      progress: () => t('duplicates.progress'),
      queued: () => t('status.queued'),
      running: (job) => t('duplicates.checking', { done: number(job.done), total: number(job.total) }),
      done: (job) => t('duplicates.checked', { n: number(job.done) }),
      aborted: (job) => t('duplicates.stopped', { done: number(job.done), total: number(job.total) }),
      failed: (job) => t('duplicates.failed', { error: job.error || t('common.unknown_error') }),
    },
    onFinished,
  });
}
