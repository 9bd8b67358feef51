// One library: its figures, search (with the query syntax explained), the listing of its
// documents with sorting and pages, and adding documents (a form, or a JSON Lines / text file).

import { api, path } from './api.js';
import { reindexPanel } from './reindex.js';
import { badge, emptyState, errorNotice, field, fill, h, loading, number, percent, readFile, time } from './dom.js';
import { errorText, t, tn } from './i18n.js';

const PAGE = 20;
// The outcome of the last upload, shown once the view is drawn again.
let lastReport = null;
const SORTS = { added_at: 'library.sort_added', title: 'library.sort_title', year: 'library.sort_year', doc_id: 'library.sort_id' };

export async function libraryView(view, id, params) {
  fill(view, loading());
  let lib;
  try {
    lib = await api(`/api/v1/libraries/${path(id)}`);
  } catch (error) {
    fill(view, errorNotice(error, () => libraryView(view, id, params)));
    return;
  }
  const q = params.get('q') || '';
  const offset = Math.max(0, Number(params.get('offset')) || 0);
  const results = h('section', { id: 'results', 'aria-live': 'polite' }, loading());
  fill(view,
    h('nav', { class: 'crumbs', 'aria-label': t('document.breadcrumb') }, h('a', { href: '#/libraries' }, t('nav.libraries')), ' / ', h('span', { 'aria-current': 'page' }, lib.name)),
    h('div', { class: 'page-head' }, h('h1', {}, lib.name), h('p', { class: 'subtitle' }, badge(lib.status), ' ', h('span', { class: 'mono muted' }, lib.id))),
    stats(lib),
    reindexPanel(lib, () => setTimeout(() => libraryView(view, id, params), 800)),
    h('p', {}, h('a', { href: `#/libraries/${path(id)}/duplicates`, id: 'duplicates-link' }, t('library.duplicates_link'))),
    searchForm(id, q, params),
    results,
    addDocuments(id, () => libraryView(view, id, params)),
    phrasesPanel(id),
    deleteLibrary(lib));
  if (q.trim()) await showSearch(results, id, q, offset);
  else await showListing(results, id, params, offset);
}

function stats(lib) {
  const item = (label, value) => h('div', { class: 'stat' }, h('dt', {}, label), h('dd', {}, value));
  return h('dl', { class: 'stats' },
    item(t('libraries.documents'), number(lib.documents)),
    item(t('libraries.words'), number(lib.words)),
    item(t('libraries.last_indexed'), time(lib.last_indexed)),
    item(t('library.index_version'), h('abbr', { title: t('library.index_version_title') }, String(lib.stats_generation))),
    item(t('libraries.changed_label'), h('abbr', { title: t('libraries.changed_title') }, percent(lib.drift, 1))));
}

// Deleting the library, after the operator confirms it by typing its identifier.
// The library's own standard wording: phrases its documents repeat (a journal's notices, ethics
// or data statements) that no check counts as copying; added and removed at once.
function phrasesPanel(id) {
  const list = h('ul', { class: 'phrases', id: 'phrases-list' });
  const status = h('div', { 'aria-live': 'polite' });
  const text = h('textarea', { id: 'phrase-text', rows: 2 });
  const show = async () => {
    try {
      const listed = await api(`/api/v1/libraries/${path(id)}/phrases`);
      fill(list, ...(listed.phrases.length === 0
        ? [h('li', { class: 'muted' }, t('phrases.none'))]
        : listed.phrases.map((p) => h('li', {},
          h('span', { class: 'phrase-text' }, p.text), ' ',
          h('button', { type: 'button', 'data-phrase': p.id, onclick: async () => {
            try {
              await api(`/api/v1/libraries/${path(id)}/phrases/${path(p.id)}`, { method: 'DELETE' });
              fill(status);
              await show();
            } catch (error) {
              fill(status, errorNotice(error));
            }
          } }, t('phrases.remove'))))));
    } catch (error) {
      fill(list);
      fill(status, errorNotice(error));
    }
  };
  const form = h('form', { onsubmit: async (event) => {
    event.preventDefault();
    try {
      await api(`/api/v1/libraries/${path(id)}/phrases`, { method: 'POST', body: { text: text.value } });
      text.value = '';
      fill(status, h('p', { class: 'notice ok' }, t('phrases.added')));
      await show();
    } catch (error) {
      fill(status, errorNotice(error));
    }
  } },
  field(t('phrases.label'), text, t('phrases.hint')),
  h('button', { type: 'submit', id: 'phrase-add' }, t('phrases.add')));
  show();
  return h('section', { class: 'panel', 'aria-labelledby': 'phrases-title' },
    h('h2', { id: 'phrases-title' }, t('phrases.title')),
    h('p', { class: 'muted' }, t('phrases.intro')),
    list, form, status);
}

function deleteLibrary(lib) {
  const status = h('div', { role: 'status' });
  const button = h('button', { type: 'button', class: 'danger', id: 'delete-library' }, t('library.delete'));
  button.addEventListener('click', async () => {
    const typed = prompt(t('library.confirm_delete', { name: lib.name, n: number(lib.documents), id: lib.id }));
    if (typed === null) return;
    if (typed.trim() !== lib.id) {
      fill(status, h('p', { class: 'error' }, t('library.not_deleted')));
      return;
    }
    try {
      await api(`/api/v1/libraries/${path(lib.id)}`, { method: 'DELETE' });
      location.hash = '#/libraries';
    } catch (error) {
      fill(status, errorNotice(error));
    }
  });
  return h('section', { class: 'panel danger-zone', 'aria-labelledby': 'danger-title' },
    h('h2', { id: 'danger-title' }, t('library.delete_title')), status, h('div', { class: 'actions' }, button));
}

function searchForm(id, q, params) {
  const input = h('input', { id: 'search-q', type: 'search', name: 'q', value: q, autocomplete: 'off', placeholder: t('library.search_placeholder') });
  const form = h('form', { role: 'search', class: 'search-form' },
    h('label', { for: 'search-q' }, t('library.search')),
    h('div', { class: 'search-row' }, input, h('button', { type: 'submit', class: 'primary' }, t('library.search_button')),
      q ? h('a', { class: 'button', href: `#/libraries/${path(id)}` }, t('library.clear')) : null),
    h('details', { class: 'syntax' }, h('summary', {}, t('library.how')),
      h('ul', {},
        h('li', {}, t('library.how_words'), h('code', {}, t('library.example_word')), t('library.how_stem')),
        h('li', {}, h('code', {}, t('library.example_phrase')), t('library.how_phrase'), h('code', {}, t('library.example_not')), t('library.how_not'), h('code', {}, 'OR'), t('library.how_or')),
        h('li', {}, t('library.how_fields'), h('code', {}, t('library.example_title')), ', ', h('code', {}, t('library.example_author')), ', ', h('code', {}, t('library.example_lang')), ', ', h('code', {}, 'year:2019'), ', ', h('code', {}, 'year:2015..2020'), ', ', h('code', {}, 'year:..1990'), '.'))));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    if (input.value.trim()) next.set('q', input.value.trim());
    else for (const key of ['sort', 'order']) if (params.get(key)) next.set(key, params.get(key));
    location.hash = `#/libraries/${path(id)}${next.toString() ? '?' + next : ''}`;
  });
  return form;
}

function pager(total, offset, limit, hrefFor) {
  if (total <= limit) return null;
  const last = Math.min(total, offset + limit);
  return h('nav', { class: 'pager', 'aria-label': t('reports.pages') },
    offset > 0 ? h('a', { class: 'button', href: hrefFor(Math.max(0, offset - limit)), rel: 'prev' }, t('library.previous')) : h('span'),
    h('span', { class: 'muted' }, t('library.range', { from: number(offset + 1), to: number(last), total: number(total) })),
    last < total ? h('a', { class: 'button', href: hrefFor(offset + limit), rel: 'next' }, t('library.next')) : h('span'));
}

async function showSearch(results, id, q, offset) {
  try {
    const found = await api(`/api/v1/libraries/${path(id)}/search?${new URLSearchParams({ q, limit: PAGE, offset })}`);
    if (found.total === 0) {
      fill(results, emptyState(t('library.nothing', { q }), h('p', {}, t('library.nothing_hint'))));
      return;
    }
    const href = (o) => `#/libraries/${path(id)}?${new URLSearchParams({ q, offset: o })}`;
    fill(results,
      // A phrase confirmed in part of the full papers holding its words: the total is a floor.
      h('h2', { class: 'results-title' }, tn(found.total_exact === false ? 'library.found_at_least' : 'library.found', found.total)),
      h('ol', { class: 'hits', start: offset + 1 }, found.hits.map((hit) => {
        const snippet = h('p', { class: 'snippet' });
        // The server escapes the text and marks matches with <b>; nothing else is HTML.
        snippet.innerHTML = hit.snippet;
        return h('li', { class: 'hit' },
          h('h3', {}, h('a', { href: `#/libraries/${path(id)}/documents/${path(hit.doc_id)}` }, hit.title || hit.doc_id)),
          h('p', { class: 'hit-meta muted small' }, [hit.authors.join('; '), hit.year, hit.doc_id].filter(Boolean).join(' · ')),
          snippet);
      })),
      pager(found.total, offset, PAGE, href));
  } catch (error) {
    fill(results, errorNotice(error));
  }
}

async function showListing(results, id, params, offset) {
  const sort = SORTS[params.get('sort')] ? params.get('sort') : 'added_at';
  const order = ['asc', 'desc'].includes(params.get('order')) ? params.get('order') : (sort === 'added_at' || sort === 'year' ? 'desc' : 'asc');
  try {
    const page = await api(`/api/v1/libraries/${path(id)}/documents?${new URLSearchParams({ sort, order, limit: PAGE, offset })}`);
    if (page.total === 0) {
      fill(results, emptyState(t('library.empty'), h('p', {}, t('library.empty_hint'), h('code', {}, 'dupfinder import'), t('library.empty_hint2'))));
      return;
    }
    const href = (o, s = sort, d = order) => `#/libraries/${path(id)}?${new URLSearchParams({ sort: s, order: d, offset: o })}`;
    const header = (key, label, cls) => {
      const active = key === sort;
      const next = active && order === 'asc' ? 'desc' : 'asc';
      return h('th', { scope: 'col', class: cls, 'aria-sort': active ? (order === 'asc' ? 'ascending' : 'descending') : null },
        h('a', { href: href(0, key, next), class: 'sort' }, label, active ? (order === 'asc' ? ' ▲' : ' ▼') : ''));
    };
    const sortSelect = h('select', { id: 'sort', onchange: (e) => { location.hash = href(0, e.target.value, e.target.value === 'added_at' || e.target.value === 'year' ? 'desc' : 'asc'); } },
      Object.entries(SORTS).map(([key, label]) => h('option', { value: key, selected: key === sort }, t(label))));
    fill(results,
      h('div', { class: 'listing-head' },
        h('h2', { class: 'results-title' }, tn('library.all', page.total)),
        h('div', { class: 'sort-control' }, h('label', { for: 'sort' }, t('library.sort_by')), sortSelect)),
      h('div', { class: 'table-wrap' }, h('table', { class: 'data documents' },
        h('thead', {}, h('tr', {},
          header('title', t('library.sort_title')), h('th', { scope: 'col' }, t('document.authors')), header('year', t('library.sort_year'), 'num'),
          h('th', { scope: 'col' }, t('document.language')), h('th', { scope: 'col', class: 'num' }, t('document.words')), header('added_at', t('document.added')))),
        h('tbody', {}, page.items.map((d) => h('tr', {},
          h('td', { 'data-label': t('library.sort_title') }, h('a', { href: `#/libraries/${path(id)}/documents/${path(d.doc_id)}` }, d.title || d.doc_id),
            h('div', { class: 'muted small mono' }, d.doc_id)),
          h('td', { 'data-label': t('document.authors') }, d.authors.length ? d.authors.join('; ') : h('span', { class: 'muted' }, '—')),
          h('td', { class: 'num', 'data-label': t('library.sort_year') }, d.year ?? '—'),
          h('td', { 'data-label': t('document.language') }, d.lang),
          h('td', { class: 'num', 'data-label': t('document.words') }, number(d.words)),
          h('td', { 'data-label': t('document.added') }, time(d.added_at))))))),
      pager(page.total, offset, PAGE, (o) => href(o)));
  } catch (error) {
    fill(results, errorNotice(error));
  }
}

function addDocuments(id, onAdded) {
  const status = h('div', { role: 'status' });
  const file = h('input', { id: 'import-file', type: 'file', accept: '.jsonl,.ndjson,.json,.txt,application/x-ndjson,text/plain' });
  const title = h('input', { id: 'doc-title', autocomplete: 'off' });
  const authors = h('input', { id: 'doc-authors', autocomplete: 'off', placeholder: t('library.authors_placeholder') });
  const year = h('input', { id: 'doc-year', inputmode: 'numeric', pattern: '[0-9]{1,4}', autocomplete: 'off' });
  const text = h('textarea', { id: 'doc-text', rows: 6, required: true });
  const report = (r) => {
    const rejected = r.rejected.map((x) => h('li', {}, t('library.rejected_line', { line: x.line, message: errorText(x.error), code: x.error.code })));
    fill(status, h('div', { class: `notice ${r.rejected.length ? 'warn' : 'ok'}` },
      tn('library.added', r.accepted), rejected.length ? h('ul', {}, rejected) : null));
  };
  const upload = h('form', { class: 'import-form' },
    field(t('library.upload_label'), file, t('library.upload_hint')),
    h('button', { type: 'submit' }, t('library.upload')));
  upload.addEventListener('submit', async (event) => {
    event.preventDefault();
    const chosen = file.files[0];
    if (!chosen) {
      fill(status, errorNotice({ message: t('library.choose_file') }));
      return;
    }
    try {
      const content = await readFile(chosen);
      const r = /\.txt$/i.test(chosen.name)
        ? await api(`/api/v1/libraries/${path(id)}/documents`, { method: 'POST', body: { id: chosen.name, title: chosen.name.replace(/\.txt$/i, ''), text: content } })
        : await api(`/api/v1/libraries/${path(id)}/documents`, { method: 'POST', ndjson: content });
      lastReport = r;
      onAdded();
    } catch (error) {
      fill(status, errorNotice(error));
    }
  });
  const single = h('form', { class: 'single-form' },
    h('div', { class: 'form-row' }, field(t('library.sort_title'), title), field(t('document.authors'), authors, t('library.authors_hint')), field(t('library.sort_year'), year)),
    field(t('library.text'), text, t('library.text_hint')),
    h('button', { type: 'submit' }, t('library.add_document')));
  single.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = { text: text.value };
    if (title.value.trim()) body.title = title.value.trim();
    const names = authors.value.split(';').map((s) => s.trim()).filter(Boolean);
    if (names.length) body.authors = names;
    if (year.value.trim()) body.year = year.value.trim();
    try {
      const r = await api(`/api/v1/libraries/${path(id)}/documents`, { method: 'POST', body });
      lastReport = r;
      onAdded();
    } catch (error) {
      fill(status, errorNotice(error));
    }
  });
  if (lastReport) {
    report(lastReport);
    lastReport = null;
  }
  return h('section', { class: 'panel', 'aria-labelledby': 'add-docs-title', id: 'add-documents' },
    h('h2', { id: 'add-docs-title' }, t('library.add_documents')),
    upload, h('details', {}, h('summary', {}, t('library.type_one')), single), status);
}
