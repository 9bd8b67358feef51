// One document: its metadata and its text.

import { api, path } from './api.js';
import { errorNotice, fill, h, loading, number, time } from './dom.js';
import { PREFILL_KEY } from './check.js';

export async function documentView(view, libraryId, docId) {
  fill(view, loading());
  try {
    const doc = await api(`/api/v1/libraries/${path(libraryId)}/documents/${path(docId)}`);
    const meta = h('dl', { class: 'meta' },
      h('dt', {}, 'Library'), h('dd', {}, h('a', { href: `#/libraries/${path(libraryId)}` }, libraryId)),
      h('dt', {}, 'Identifier'), h('dd', { class: 'mono' }, doc.doc_id),
      doc.authors.length ? [h('dt', {}, 'Authors'), h('dd', {}, doc.authors.join('; '))] : null,
      h('dt', {}, 'Year'), h('dd', {}, doc.year ?? '—'),
      h('dt', {}, 'Language'), h('dd', {}, doc.lang),
      h('dt', {}, 'Words'), h('dd', {}, number(doc.words)),
      h('dt', {}, 'Added'), h('dd', {}, time(doc.added_at)),
      doc.url ? [h('dt', {}, 'Source'), h('dd', { class: 'url' }, h('a', { href: doc.url, rel: 'noopener noreferrer' }, doc.url))] : null);
    const checkIt = h('button', { type: 'button', onclick: () => {
      sessionStorage.setItem(PREFILL_KEY, doc.text);
      location.hash = '#/check';
    } }, 'Check this text against the libraries');
    const status = h('div', { role: 'status' });
    const remove = h('button', { type: 'button', class: 'danger', id: 'delete-document', onclick: async () => {
      if (!confirm(`Delete the document “${doc.title || doc.doc_id}” from ${libraryId}? It cannot be undone.`)) return;
      try {
        await api(`/api/v1/libraries/${path(libraryId)}/documents/${path(docId)}`, { method: 'DELETE' });
        location.hash = `#/libraries/${path(libraryId)}`;
      } catch (error) {
        fill(status, errorNotice(error));
      }
    } }, 'Delete this document…');
    fill(view,
      h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' },
        h('a', { href: '#/libraries' }, 'Libraries'), ' / ',
        h('a', { href: `#/libraries/${path(libraryId)}` }, libraryId), ' / ',
        h('span', { 'aria-current': 'page' }, 'Document')),
      h('article', { class: 'document' },
        h('h1', {}, doc.title || doc.doc_id),
        h('div', { class: 'document-layout' },
          h('aside', { class: 'panel' }, meta, checkIt, remove, status),
          h('div', { class: 'document-text', lang: doc.lang && doc.lang !== 'und' ? doc.lang : null }, doc.text))));
  } catch (error) {
    fill(view, errorNotice(error, () => documentView(view, libraryId, docId)));
  }
}
