// One library: its figures, search (with the query syntax explained), the listing of its
// documents with sorting and pages, and adding documents (a form, or a JSON Lines / text file).

import { api, path } from './api.js';
import { reindexPanel } from './reindex.js';
import { badge, emptyState, errorNotice, field, fill, h, loading, number, percent, readFile, time } from './dom.js';

const PAGE = 20;
// The outcome of the last upload, shown once the view is drawn again.
let lastReport = null;
const SORTS = { added_at: 'Date added', title: 'Title', year: 'Year', doc_id: 'Identifier' };

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
    h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: '#/libraries' }, 'Libraries'), ' / ', h('span', { 'aria-current': 'page' }, lib.name)),
    h('div', { class: 'page-head' }, h('h1', {}, lib.name), h('p', { class: 'subtitle' }, badge(lib.status), ' ', h('span', { class: 'mono muted' }, lib.id))),
    stats(lib),
    reindexPanel(lib, () => setTimeout(() => libraryView(view, id, params), 800)),
    h('p', {}, h('a', { href: `#/libraries/${path(id)}/duplicates`, id: 'duplicates-link' }, 'Duplicates inside this library →')),
    searchForm(id, q, params),
    results,
    addDocuments(id, () => libraryView(view, id, params)),
    deleteLibrary(lib));
  if (q.trim()) await showSearch(results, id, q, offset);
  else await showListing(results, id, params, offset);
}

function stats(lib) {
  const item = (label, value) => h('div', { class: 'stat' }, h('dt', {}, label), h('dd', {}, value));
  return h('dl', { class: 'stats' },
    item('Documents', number(lib.documents)),
    item('Words', number(lib.words)),
    item('Last indexed', time(lib.last_indexed)),
    item('Statistics version', h('abbr', { title: 'Signatures are computed against this count of the library\'s word statistics; a re-index makes a new one.' }, String(lib.stats_generation))),
    item('Changed since re-index', h('abbr', { title: 'Documents added or replaced since the statistics were last counted, as a share of the library. A re-index brings it back to 0 %.' }, percent(lib.drift, 1))));
}

// Deleting the library, after the operator confirms it by typing its identifier.
function deleteLibrary(lib) {
  const status = h('div', { role: 'status' });
  const button = h('button', { type: 'button', class: 'danger', id: 'delete-library' }, 'Delete this library…');
  button.addEventListener('click', async () => {
    const typed = prompt(`This removes the library “${lib.name}”, its ${number(lib.documents)} documents and its index. It cannot be undone.\n\nType the identifier “${lib.id}” to confirm:`);
    if (typed === null) return;
    if (typed.trim() !== lib.id) {
      fill(status, h('p', { class: 'error' }, 'The identifier did not match; nothing was deleted.'));
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
    h('h2', { id: 'danger-title' }, 'Delete'), status, h('div', { class: 'actions' }, button));
}

function searchForm(id, q, params) {
  const input = h('input', { id: 'search-q', type: 'search', name: 'q', value: q, autocomplete: 'off', placeholder: 'words, "a phrase", title:parsing author:smith year:2015..2020' });
  const form = h('form', { role: 'search', class: 'search-form' },
    h('label', { for: 'search-q' }, 'Search this library'),
    h('div', { class: 'search-row' }, input, h('button', { type: 'submit', class: 'primary' }, 'Search'),
      q ? h('a', { class: 'button', href: `#/libraries/${path(id)}` }, 'Clear') : null),
    h('details', { class: 'syntax' }, h('summary', {}, 'How to search'),
      h('ul', {},
        h('li', {}, 'All words must appear (in the title or the text); words are matched by their stem: ', h('code', {}, 'glaciers'), ' finds “glacier”.'),
        h('li', {}, h('code', {}, '"word sense disambiguation"'), ' finds the exact phrase; ', h('code', {}, '-survey'), ' excludes a word; ', h('code', {}, 'OR'), ' and parentheses group.'),
        h('li', {}, 'Fields: ', h('code', {}, 'title:parsing'), ', ', h('code', {}, 'author:smith'), ', ', h('code', {}, 'lang:en'), ', ', h('code', {}, 'year:2019'), ', ', h('code', {}, 'year:2015..2020'), ', ', h('code', {}, 'year:..1990'), '.'))));
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
  return h('nav', { class: 'pager', 'aria-label': 'Pages' },
    offset > 0 ? h('a', { class: 'button', href: hrefFor(Math.max(0, offset - limit)), rel: 'prev' }, '← Previous') : h('span'),
    h('span', { class: 'muted' }, `${number(offset + 1)}–${number(last)} of ${number(total)}`),
    last < total ? h('a', { class: 'button', href: hrefFor(offset + limit), rel: 'next' }, 'Next →') : h('span'));
}

async function showSearch(results, id, q, offset) {
  try {
    const found = await api(`/api/v1/libraries/${path(id)}/search?${new URLSearchParams({ q, limit: PAGE, offset })}`);
    if (found.total === 0) {
      fill(results, emptyState(`Nothing matches “${q}”.`, h('p', {}, 'Check the spelling, drop a word or a filter, or search the titles only with title:…')));
      return;
    }
    const href = (o) => `#/libraries/${path(id)}?${new URLSearchParams({ q, offset: o })}`;
    fill(results,
      h('h2', { class: 'results-title' }, found.total === 1 ? '1 document matches' : `${number(found.total)} documents match`),
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
      fill(results, emptyState('This library has no documents yet.', h('p', {}, 'Add some below, import a corpus with ', h('code', {}, 'dupfinder import'), ', or crawl a site from the queue.')));
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
      Object.entries(SORTS).map(([key, label]) => h('option', { value: key, selected: key === sort }, label)));
    fill(results,
      h('div', { class: 'listing-head' },
        h('h2', { class: 'results-title' }, `All ${number(page.total)} documents`),
        h('div', { class: 'sort-control' }, h('label', { for: 'sort' }, 'Sort by'), sortSelect)),
      h('div', { class: 'table-wrap' }, h('table', { class: 'data documents' },
        h('thead', {}, h('tr', {},
          header('title', 'Title'), h('th', { scope: 'col' }, 'Authors'), header('year', 'Year', 'num'),
          h('th', { scope: 'col' }, 'Language'), h('th', { scope: 'col', class: 'num' }, 'Words'), header('added_at', 'Added'))),
        h('tbody', {}, page.items.map((d) => h('tr', {},
          h('td', { 'data-label': 'Title' }, h('a', { href: `#/libraries/${path(id)}/documents/${path(d.doc_id)}` }, d.title || d.doc_id),
            h('div', { class: 'muted small mono' }, d.doc_id)),
          h('td', { 'data-label': 'Authors' }, d.authors.length ? d.authors.join('; ') : h('span', { class: 'muted' }, '—')),
          h('td', { class: 'num', 'data-label': 'Year' }, d.year ?? '—'),
          h('td', { 'data-label': 'Language' }, d.lang),
          h('td', { class: 'num', 'data-label': 'Words' }, number(d.words)),
          h('td', { 'data-label': 'Added' }, time(d.added_at))))))),
      pager(page.total, offset, PAGE, (o) => href(o)));
  } catch (error) {
    fill(results, errorNotice(error));
  }
}

function addDocuments(id, onAdded) {
  const status = h('div', { role: 'status' });
  const file = h('input', { id: 'import-file', type: 'file', accept: '.jsonl,.ndjson,.json,.txt,application/x-ndjson,text/plain' });
  const title = h('input', { id: 'doc-title', autocomplete: 'off' });
  const authors = h('input', { id: 'doc-authors', autocomplete: 'off', placeholder: 'Ada Lovelace; Charles Babbage' });
  const year = h('input', { id: 'doc-year', inputmode: 'numeric', pattern: '[0-9]{1,4}', autocomplete: 'off' });
  const text = h('textarea', { id: 'doc-text', rows: 6, required: true });
  const report = (r) => {
    const rejected = r.rejected.map((x) => h('li', {}, `line ${x.line}: ${x.error.message} (${x.error.code})`));
    fill(status, h('div', { class: `notice ${r.rejected.length ? 'warn' : 'ok'}` },
      `${number(r.accepted)} document${r.accepted === 1 ? '' : 's'} added.`, rejected.length ? h('ul', {}, rejected) : null));
  };
  const upload = h('form', { class: 'import-form' },
    field('Upload JSON Lines or a text file', file, 'One JSON document per line ({"id", "title", "authors", "year", "text"}), or a .txt file as one document.'),
    h('button', { type: 'submit' }, 'Upload'));
  upload.addEventListener('submit', async (event) => {
    event.preventDefault();
    const chosen = file.files[0];
    if (!chosen) {
      fill(status, errorNotice({ message: 'Choose a file first.' }));
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
    h('div', { class: 'form-row' }, field('Title', title), field('Authors', authors, 'Separated by semicolons.'), field('Year', year)),
    field('Text', text, 'At least ten words.'),
    h('button', { type: 'submit' }, 'Add document'));
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
    h('h2', { id: 'add-docs-title' }, 'Add documents'),
    upload, h('details', {}, h('summary', {}, 'Type or paste one document'), single), status);
}
