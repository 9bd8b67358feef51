// The libraries: their figures (documents, words, last indexed, status, changes since the last
// re-index) and a form to add one (with a site to crawl, its sitemap or its OAI-PMH endpoint).

import { api, path } from './api.js';
import { badge, emptyState, errorNotice, field, fill, h, heading, loading, number, percent, time } from './dom.js';

export async function librariesView(view) {
  const list = h('section', { 'aria-labelledby': 'libraries-title' }, loading());
  fill(view,
    heading('Libraries', 'Each library has its own index and statistics; documents are checked against the libraries you choose.'),
    list,
    addLibraryForm(() => librariesView(view)));
  try {
    const { libraries } = await api('/api/v1/libraries');
    fill(list, h('h2', { id: 'libraries-title', class: 'visually-hidden' }, 'All libraries'), librariesTable(libraries));
  } catch (error) {
    fill(list, errorNotice(error, () => librariesView(view)));
  }
}

function librariesTable(libraries) {
  if (libraries.length === 0) {
    return emptyState('No libraries yet — add one below.',
      h('p', {}, 'A library is a collection of documents: import a corpus, send documents through the API, or give a start URL to crawl a site.'));
  }
  return h('div', { class: 'table-wrap' }, h('table', { class: 'data libraries' },
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, 'Library'),
      h('th', { scope: 'col', class: 'num' }, 'Documents'),
      h('th', { scope: 'col', class: 'num' }, 'Words'),
      h('th', { scope: 'col' }, 'Last indexed'),
      h('th', { scope: 'col' }, 'Status'),
      h('th', { scope: 'col', class: 'num' }, h('abbr', { title: 'Documents added or replaced since the statistics were last counted; a re-index brings it back to 0 %' }, 'Changed')))),
    h('tbody', {}, libraries.map((lib) => h('tr', {},
      h('td', { 'data-label': 'Library' },
        h('a', { href: `#/libraries/${path(lib.id)}`, class: 'strong' }, lib.name),
        lib.name !== lib.id ? h('div', { class: 'muted small' }, lib.id) : null,
        lib.start_url ? h('div', { class: 'muted small url' }, lib.start_url) : null),
      h('td', { class: 'num', 'data-label': 'Documents' }, number(lib.documents)),
      h('td', { class: 'num', 'data-label': 'Words' }, number(lib.words)),
      h('td', { 'data-label': 'Last indexed' }, time(lib.last_indexed)),
      h('td', { 'data-label': 'Status' }, badge(lib.status)),
      h('td', { class: 'num', 'data-label': 'Changed since re-index' }, percent(lib.drift, 1)))))));
}

function addLibraryForm(onCreated) {
  const id = h('input', { name: 'id', required: true, pattern: '[a-z0-9][a-z0-9_\\-]{0,63}', autocomplete: 'off', spellcheck: 'false', placeholder: 'e.g. acl' });
  const name = h('input', { name: 'name', autocomplete: 'off', placeholder: 'e.g. ACL Anthology abstracts' });
  const startUrl = h('input', { name: 'start_url', type: 'url', placeholder: 'https://journal.example.org/' });
  const clarifications = h('input', { name: 'clarifications', placeholder: '/article/, /view/' });
  const sitemapUrl = h('input', { name: 'sitemap_url', type: 'url', placeholder: 'https://journal.example.org/sitemap.xml' });
  const useSitemaps = h('input', { name: 'use_sitemaps', type: 'checkbox' });
  const oaiUrl = h('input', { name: 'oai_url', type: 'url', placeholder: 'https://journal.example.org/oai' });
  const oaiSet = h('input', { name: 'oai_set', autocomplete: 'off', placeholder: 'e.g. journal:physics' });
  const status = h('div', { role: 'status' });
  const form = h('form', { class: 'panel', 'aria-labelledby': 'add-title' },
    h('h2', { id: 'add-title' }, 'Add a library'),
    h('div', { class: 'form-row' },
      field('Identifier', id, 'Lowercase letters, digits, - and _; it names the library in the API.'),
      field('Name', name, 'Shown to people; the identifier when left empty.')),
    h('details', {},
      h('summary', {}, 'Crawl a site (optional)'),
      h('div', { class: 'form-row' },
        field('Start URL', startUrl, 'The page the crawler starts from.'),
        field('Article URLs contain', clarifications, 'Comma-separated parts of article addresses.')),
      h('div', { class: 'form-row' },
        field('Sitemap', sitemapUrl, 'A sitemap (or sitemap index) listing the articles.'),
        h('label', { class: 'check' }, useSitemaps, ' Use the sitemaps the site’s robots.txt names')),
      h('div', { class: 'form-row' },
        field('OAI-PMH endpoint', oaiUrl, 'The base URL of the repository’s OAI-PMH interface (harvested by date).'),
        field('OAI-PMH set', oaiSet, 'Optional: harvest one set only.'))),
    status,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Add library')));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = { id: id.value.trim() };
    if (name.value.trim()) body.name = name.value.trim();
    if (startUrl.value.trim()) body.start_url = startUrl.value.trim();
    const parts = clarifications.value.split(',').map((s) => s.trim()).filter(Boolean);
    if (parts.length) body.clarifications = parts;
    if (sitemapUrl.value.trim()) body.sitemap_url = sitemapUrl.value.trim();
    if (useSitemaps.checked) body.use_sitemaps = true;
    if (oaiUrl.value.trim()) body.oai_url = oaiUrl.value.trim();
    if (oaiSet.value.trim()) body.oai_set = oaiSet.value.trim();
    try {
      await api('/api/v1/libraries', { method: 'POST', body });
      location.hash = `#/libraries/${path(body.id)}`;
      onCreated();
    } catch (error) {
      fill(status, errorNotice(error));
    }
  });
  return form;
}
