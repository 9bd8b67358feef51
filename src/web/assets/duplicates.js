// A library's duplicates: find them (the dedup job, followed and stopped like a re-index), its
// clusters page by page, and two members of a cluster side by side with their shared passages
// (found by checking the canonical record's text against the library).

import { api, path } from './api.js';
import { emptyState, errorNotice, fill, h, loading, number, percent } from './dom.js';
import { renderMarked, reveal } from './highlight.js';

const POLL_MS = 500;
const PAGE = 20;

export async function duplicatesView(view, id, params) {
  const offset = Math.max(0, Number(params.get('offset')) || 0);
  const list = h('section', { id: 'clusters', 'aria-live': 'polite' }, loading());
  const compare = h('section', { class: 'compare', id: 'compare' });
  fill(view,
    h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' },
      h('a', { href: '#/libraries' }, 'Libraries'), ' / ',
      h('a', { href: `#/libraries/${path(id)}` }, id), ' / ',
      h('span', { 'aria-current': 'page' }, 'Duplicates')),
    h('div', { class: 'page-head' }, h('h1', {}, `Duplicates in ${id}`),
      h('p', { class: 'subtitle' }, 'Documents whose texts are near-duplicates of each other, grouped in clusters with a canonical record.')),
    dedupPanel(id, () => duplicatesView(view, id, params)),
    list, compare);
  try {
    const page = await api(`/api/v1/libraries/${path(id)}/duplicates?limit=${PAGE}&offset=${offset}`);
    showClusters(list, compare, id, page, offset);
  } catch (error) {
    fill(list, errorNotice(error, () => duplicatesView(view, id, params)));
  }
}

function showClusters(list, compare, id, page, offset) {
  if (page.updated_at === null) {
    fill(list, emptyState('Not deduplicated yet.', h('p', {}, 'Find the duplicates to see clusters here; documents that arrive afterwards are checked as they come.')));
    return;
  }
  if (page.total === 0) {
    fill(list, emptyState('No duplicates found.', h('p', {}, `${number(page.related)} pairs of documents share passages without being duplicates.`)));
    return;
  }
  const doc = (docId) => h('a', { href: `#/libraries/${path(id)}/documents/${path(docId)}`, class: 'mono' }, docId);
  const rows = [];
  for (const cluster of page.clusters) {
    cluster.members.forEach((m, i) => rows.push(h('tr', {},
      i === 0 ? h('td', { 'data-label': 'Canonical', rowspan: cluster.members.length }, doc(cluster.canonical), h('div', { class: 'muted' }, `${cluster.size} documents`)) : null,
      h('td', { 'data-label': 'Member' }, doc(m.doc_id), m.via ? h('div', { class: 'muted' }, 'via ', m.via) : null),
      h('td', { 'data-label': 'Similarity' }, percent(m.similarity)),
      h('td', { 'data-label': 'Relation' }, m.relation),
      h('td', {}, h('button', { type: 'button', class: 'small', onclick: () => sideBySide(compare, id, m.via || cluster.canonical, m.doc_id) }, 'Compare')))));
  }
  const table = h('table', { class: 'data' },
    h('caption', {}, `${number(page.total)} clusters · ${number(page.related)} related pairs (shared passages, not merged)`),
    h('thead', {}, h('tr', {}, h('th', {}, 'Canonical record'), h('th', {}, 'Member'), h('th', {}, 'Similarity'), h('th', {}, 'Relation'), h('th', {}, ''))),
    h('tbody', {}, rows));
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages' },
    offset > 0 ? h('a', { href: `#/libraries/${path(id)}/duplicates?offset=${Math.max(0, offset - PAGE)}` }, '← Previous') : null, ' ',
    offset + PAGE < page.total ? h('a', { href: `#/libraries/${path(id)}/duplicates?offset=${offset + PAGE}` }, 'Next →') : null);
  fill(list, h('div', { class: 'table-wrap' }, table), pager);
}

// Two documents side by side, the passages they share highlighted in both.
async function sideBySide(compare, id, leftId, rightId) {
  fill(compare, loading());
  try {
    const [left, right] = await Promise.all([
      api(`/api/v1/libraries/${path(id)}/documents/${path(leftId)}`),
      api(`/api/v1/libraries/${path(id)}/documents/${path(rightId)}`),
    ]);
    const report = await api('/api/v1/check', { method: 'POST', body: { text: left.text, libraries: [id], passages: true, lang: left.lang } });
    const match = report.matches.find((m) => m.doc_id === rightId);
    const passages = (match && match.passages) || [];
    const leftPane = h('div', { class: 'pane-text', id: 'pane-left', tabindex: 0, 'aria-label': leftId });
    const rightPane = h('div', { class: 'pane-text', id: 'pane-right', tabindex: 0, 'aria-label': rightId });
    fill(compare, h('h2', {}, 'Side by side'),
      h('p', { class: 'hint' }, match
        ? `${match.verdict}: resemblance ${percent(match.resemblance)}, word similarity ${percent(match.word_similarity)}. Select a highlighted passage to see it in both texts.`
        : 'The check of the left text no longer finds the right one.'),
      h('div', { class: 'panes' },
        h('div', { class: 'pane' }, h('h3', {}, left.title || leftId), leftPane),
        h('div', { class: 'pane' }, h('h3', {}, right.title || rightId), rightPane)));
    const activate = (span) => { reveal(leftPane, span.key); reveal(rightPane, span.key); };
    renderMarked(leftPane, left.text, passages.map((p, j) => ({ start: p.query.start, end: p.query.end, source: 0, key: `0-${j}`, label: 'Shared passage' })), activate);
    renderMarked(rightPane, right.text, passages.map((p, j) => ({ start: p.doc.start, end: p.doc.end, source: 0, key: `0-${j}`, label: 'Shared passage' })), activate);
    compare.scrollIntoView({ behavior: 'smooth', block: 'start' });
  } catch (error) {
    fill(compare, errorNotice(error));
  }
}

// Starts the dedup job and follows it; a job already queued or running is picked up.
function dedupPanel(id, onFinished) {
  const status = h('div', { class: 'reindex-status', 'aria-live': 'polite' });
  const start = h('button', { type: 'button', class: 'small', id: 'find-duplicates' }, 'Find duplicates');
  const panel = h('div', { class: 'reindex' }, start, status);
  let timer = null;
  const show = (job) => {
    const running = job.state === 'queued' || job.state === 'running';
    start.disabled = running;
    if (running) {
      const stop = h('button', { type: 'button', class: 'small danger', onclick: () => api(`/api/v1/jobs/${path(job.job)}`, { method: 'DELETE' }).catch((error) => fill(status, errorNotice(error))) }, 'Stop');
      fill(status,
        h('span', {}, job.state === 'queued' ? 'Queued' : `Checking ${number(job.done)} of ${number(job.total)} documents`),
        h('progress', { max: Math.max(job.total, 1), value: Math.min(job.done, job.total), 'aria-label': 'Dedup progress' }),
        stop);
      timer = setTimeout(() => follow(job.job), POLL_MS);
    } else if (job.state === 'done') {
      fill(status, h('span', { class: 'ok' }, `Checked ${number(job.done)} documents.`));
      onFinished();
    } else if (job.state === 'aborted') {
      fill(status, h('span', {}, `Stopped after ${number(job.done)} of ${number(job.total)} documents; start again to resume.`));
    } else {
      fill(status, h('span', { class: 'error-text' }, `Failed: ${job.error || 'unknown error'}`));
    }
  };
  const follow = async (job) => {
    if (!panel.isConnected) return;
    try {
      show(await api(`/api/v1/jobs/${path(job)}`));
    } catch (error) {
      fill(status, errorNotice(error, () => follow(job)));
    }
  };
  start.onclick = async () => {
    clearTimeout(timer);
    start.disabled = true;
    try {
      show(await api(`/api/v1/libraries/${path(id)}/dedup`, { method: 'POST' }));
    } catch (error) {
      start.disabled = false;
      fill(status, errorNotice(error));
    }
  };
  api('/api/v1/jobs').then(({ jobs }) => {
    const current = jobs.find((job) => job.library === id && job.kind === 'dedup' && (job.state === 'queued' || job.state === 'running'));
    if (current) show(current);
  }).catch(() => {});
  return panel;
}
