// The libraries: a page of them at a time, filtered by id or name (both kept in the address,
// `#/libraries?q=…&offset=…`), with their figures (documents, words, last indexed, status,
// changes since the last re-index), and a form to add one (with a site to crawl, its sitemap
// or its OAI-PMH endpoint).

import { api, path } from './api.js';
import { badge, emptyState, errorNotice, field, fill, h, heading, loading, number, percent, time } from './dom.js';
import { t } from './i18n.js';

const PAGE = 50;

export async function librariesView(view, params = new URLSearchParams()) {
  const q = (params.get('q') || '').trim();
  const offset = Math.max(0, Number(params.get('offset')) || 0);
  const list = h('section', { 'aria-labelledby': 'libraries-title' }, loading());
  fill(view,
    heading(t('libraries.title'), t('libraries.subtitle')),
    filterForm(q),
    list,
    addLibraryForm(() => librariesView(view, params)));
  try {
    const query = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
    if (q) query.set('q', q);
    const page = await api(`/api/v1/libraries?${query}`);
    fill(list, h('h2', { id: 'libraries-title', class: 'visually-hidden' }, t('libraries.all')),
      page.total === 0 ? noLibraries(q) : librariesTable(page, q, offset));
  } catch (error) {
    fill(list, errorNotice(error, () => librariesView(view, params)));
  }
}

// Where the list goes with the filter `q` from `offset`.
function listLink(q, offset) {
  const query = new URLSearchParams();
  if (q) query.set('q', q);
  if (offset > 0) query.set('offset', String(offset));
  return `#/libraries${query.toString() ? `?${query}` : ''}`;
}

function filterForm(q) {
  const input = h('input', { type: 'search', name: 'q', id: 'libraries-filter', value: q, autocomplete: 'off', spellcheck: 'false', placeholder: t('libraries.filter_placeholder') });
  const form = h('form', { class: 'panel inline-form', role: 'search' },
    field(t('libraries.filter'), input),
    h('button', { type: 'submit', class: 'primary' }, t('libraries.filter_button')),
    q ? h('a', { class: 'button', href: '#/libraries' }, t('libraries.clear')) : null);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    location.hash = listLink(input.value.trim(), 0);
  });
  return form;
}

function noLibraries(q) {
  if (q) {
    return emptyState(t('libraries.none_filtered', { q }),
      h('p', {}, h('a', { href: '#/libraries' }, t('libraries.clear'))));
  }
  return emptyState(t('libraries.none'),
    h('p', {}, t('libraries.none_hint')));
}

function librariesTable(page, q, offset) {
  const { libraries, total } = page;
  return [h('div', { class: 'table-wrap' }, h('table', { class: 'data libraries' },
    h('caption', {}, t('libraries.caption', { from: number(offset + 1), to: number(offset + libraries.length), total: number(total) })),
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, t('libraries.library')),
      h('th', { scope: 'col', class: 'num' }, t('libraries.documents')),
      h('th', { scope: 'col', class: 'num' }, t('libraries.words')),
      h('th', { scope: 'col' }, t('libraries.last_indexed')),
      h('th', { scope: 'col' }, t('libraries.status')),
      h('th', { scope: 'col', class: 'num' }, h('abbr', { title: t('libraries.changed_title') }, t('libraries.changed'))))),
    h('tbody', {}, libraries.map((lib) => h('tr', {},
      h('td', { 'data-label': t('libraries.library') },
        h('a', { href: `#/libraries/${path(lib.id)}`, class: 'strong' }, lib.name),
        lib.name !== lib.id ? h('div', { class: 'muted small' }, lib.id) : null,
        lib.start_url ? h('div', { class: 'muted small url' }, lib.start_url) : null),
      h('td', { class: 'num', 'data-label': t('libraries.documents'), dataset: { field: 'documents' } }, number(lib.documents)),
      h('td', { class: 'num', 'data-label': t('libraries.words') }, number(lib.words)),
      h('td', { 'data-label': t('libraries.last_indexed') }, time(lib.last_indexed)),
      h('td', { 'data-label': t('libraries.status') }, badge(lib.status), lib.paused ? [' ', badge('paused')] : null,
        lib.schedule ? h('div', { class: 'muted small' }, t('libraries.every_hours', { n: number(lib.schedule.every_hours) })) : null),
      h('td', { class: 'num', 'data-label': t('libraries.changed_label') }, percent(lib.drift, 1))))))),
  total > PAGE ? h('nav', { class: 'pager', 'aria-label': t('libraries.pages') },
    offset > 0 ? h('a', { class: 'button', href: listLink(q, Math.max(0, offset - PAGE)), rel: 'prev' }, t('libraries.previous')) : h('span'),
    h('span', { class: 'muted' }, t('libraries.page', { n: Math.floor(offset / PAGE) + 1, of: Math.ceil(total / PAGE) })),
    offset + PAGE < total ? h('a', { class: 'button', href: listLink(q, offset + PAGE), rel: 'next' }, t('libraries.next')) : h('span')) : null];
}

function addLibraryForm(onCreated) {
  const id = h('input', { name: 'id', required: true, pattern: '[a-z0-9][a-z0-9_\\-]{0,63}', autocomplete: 'off', spellcheck: 'false', placeholder: t('libraries.id_placeholder') });
  const name = h('input', { name: 'name', autocomplete: 'off', placeholder: t('libraries.name_placeholder') });
  const startUrl = h('input', { name: 'start_url', type: 'url', placeholder: 'https://journal.example.org/' });
  const clarifications = h('input', { name: 'clarifications', placeholder: '/article/, /view/' });
  const sitemapUrl = h('input', { name: 'sitemap_url', type: 'url', placeholder: 'https://journal.example.org/sitemap.xml' });
  const useSitemaps = h('input', { name: 'use_sitemaps', type: 'checkbox' });
  const oaiUrl = h('input', { name: 'oai_url', type: 'url', placeholder: 'https://journal.example.org/oai' });
  const oaiSet = h('input', { name: 'oai_set', autocomplete: 'off', placeholder: t('libraries.oai_set_placeholder') });
  const status = h('div', { role: 'status' });
  const form = h('form', { class: 'panel', 'aria-labelledby': 'add-title' },
    h('h2', { id: 'add-title' }, t('libraries.add')),
    h('div', { class: 'form-row' },
      field(t('libraries.id'), id, t('libraries.id_hint')),
      field(t('libraries.name'), name, t('libraries.name_hint'))),
    h('details', {},
      h('summary', {}, t('libraries.crawl')),
      h('div', { class: 'form-row' },
        field(t('libraries.start_url'), startUrl, t('libraries.start_url_hint')),
        field(t('libraries.clarifications'), clarifications, t('libraries.clarifications_hint'))),
      h('div', { class: 'form-row' },
        field(t('libraries.sitemap'), sitemapUrl, t('libraries.sitemap_hint')),
        h('label', { class: 'check' }, useSitemaps, ` ${t('libraries.use_sitemaps')}`)),
      h('div', { class: 'form-row' },
        field(t('libraries.oai'), oaiUrl, t('libraries.oai_hint')),
        field(t('libraries.oai_set'), oaiSet, t('libraries.oai_set_hint')))),
    status,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, t('libraries.add_button'))));
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
