// The libraries: their figures (documents, words, last indexed, status, changes since the last
// re-index) and a form to add one (with a site to crawl, its sitemap or its OAI-PMH endpoint).

import { api, path } from './api.js';
import { badge, emptyState, errorNotice, field, fill, h, heading, loading, number, percent, time } from './dom.js';
import { t } from './i18n.js';

export async function librariesView(view) {
  const list = h('section', { 'aria-labelledby': 'libraries-title' }, loading());
  fill(view,
    heading(t('libraries.title'), t('libraries.subtitle')),
    list,
    addLibraryForm(() => librariesView(view)));
  try {
    const { libraries } = await api('/api/v1/libraries');
    fill(list, h('h2', { id: 'libraries-title', class: 'visually-hidden' }, t('libraries.all')), librariesTable(libraries));
  } catch (error) {
    fill(list, errorNotice(error, () => librariesView(view)));
  }
}

function librariesTable(libraries) {
  if (libraries.length === 0) {
    return emptyState(t('libraries.none'),
      h('p', {}, t('libraries.none_hint')));
  }
  return h('div', { class: 'table-wrap' }, h('table', { class: 'data libraries' },
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
      h('td', { 'data-label': t('libraries.status') }, badge(lib.status)),
      h('td', { class: 'num', 'data-label': t('libraries.changed_label') }, percent(lib.drift, 1)))))));
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
