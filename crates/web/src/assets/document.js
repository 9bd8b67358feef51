// One document: its metadata and its text.

import { api, path } from './api.js';
import { errorNotice, fill, h, loading, number, time } from './dom.js';
import { PREFILL_KEY } from './check.js';
import { t } from './i18n.js';

export async function documentView(view, libraryId, docId) {
  fill(view, loading());
  try {
    const doc = await api(`/api/v1/libraries/${path(libraryId)}/documents/${path(docId)}`);
    const meta = h('dl', { class: 'meta' },
      h('dt', {}, t('document.library')), h('dd', {}, h('a', { href: `#/libraries/${path(libraryId)}` }, libraryId)),
      h('dt', {}, t('document.id')), h('dd', { class: 'mono' }, doc.doc_id),
      doc.authors.length ? [h('dt', {}, t('document.authors')), h('dd', {}, doc.authors.join('; '))] : null,
      h('dt', {}, t('document.year')), h('dd', {}, doc.year ?? '—'),
      h('dt', {}, t('document.language')), h('dd', {}, doc.lang),
      h('dt', {}, t('document.words')), h('dd', {}, number(doc.words)),
      h('dt', {}, t('document.added')), h('dd', {}, time(doc.added_at)),
      doc.url ? [h('dt', {}, t('document.source')), h('dd', { class: 'url' }, h('a', { href: doc.url, rel: 'noopener noreferrer' }, doc.url))] : null,
      doc.pdf_url ? [h('dt', {}, t('document.full_text')), h('dd', { class: 'url' }, h('a', { href: doc.pdf_url, rel: 'noopener noreferrer', id: 'document-pdf-url' }, doc.pdf_url))] : null,
      doc.doi ? [h('dt', {}, t('document.doi')), h('dd', { class: 'url' }, h('a', { href: doiLink(doc.doi), rel: 'noopener noreferrer', id: 'document-doi' }, doc.doi))] : null);
    const checkIt = h('button', { type: 'button', onclick: () => {
      sessionStorage.setItem(PREFILL_KEY, doc.text);
      location.hash = '#/check';
    } }, t('document.check_it'));
    const status = h('div', { role: 'status' });
    const remove = h('button', { type: 'button', class: 'danger', id: 'delete-document', onclick: async () => {
      if (!confirm(t('document.confirm_delete', { title: doc.title || doc.doc_id, library: libraryId }))) return;
      try {
        await api(`/api/v1/libraries/${path(libraryId)}/documents/${path(docId)}`, { method: 'DELETE' });
        location.hash = `#/libraries/${path(libraryId)}`;
      } catch (error) {
        fill(status, errorNotice(error));
      }
    } }, t('document.delete'));
    fill(view,
      h('nav', { class: 'crumbs', 'aria-label': t('document.breadcrumb') },
        h('a', { href: '#/libraries' }, t('nav.libraries')), ' / ',
        h('a', { href: `#/libraries/${path(libraryId)}` }, libraryId), ' / ',
        h('span', { 'aria-current': 'page' }, t('document.title'))),
      h('article', { class: 'document' },
        h('h1', {}, doc.title || doc.doc_id),
        h('div', { class: 'document-layout' },
          h('aside', { class: 'panel' }, meta, checkIt, remove, status),
          h('div', { class: 'document-text', lang: doc.lang && doc.lang !== 'und' ? doc.lang : null }, doc.text))));
  } catch (error) {
    fill(view, errorNotice(error, () => documentView(view, libraryId, docId)));
  }
}

/** The resolver address of a DOI; each part of it is escaped, the slashes kept. */
function doiLink(doi) {
  return 'https://doi.org/' + doi.split('/').map(encodeURIComponent).join('/');
}
