// The history of checks at `#/reports`: every kept report, newest first, filtered by verdict,
// decision, library and dates, a page at a time. The filters live in the address, so a filtered
// list can be reloaded and sent.

import { api, path } from './api.js';
import { badge, date, emptyState, errorNotice, fill, h, heading, loading, number, percent } from './dom.js';
import { t } from './i18n.js';
import { DECISIONS } from './report.js';

const PAGE = 20;
const VERDICTS = ['duplicate', 'partial', 'original'];

// `2026-11-25` → seconds at the start (or, with `end`, the end) of that day, local time.
function dayToSeconds(day, end) {
  if (!day) return null;
  const d = new Date(`${day}T00:00:00`);
  if (Number.isNaN(d.getTime())) return null;
  if (end) d.setDate(d.getDate() + 1);
  return Math.floor(d.getTime() / 1000) - (end ? 1 : 0);
}

export async function reportsView(view, params) {
  const offset = Math.max(0, Number(params.get('offset')) || 0);
  const chosen = {
    verdict: params.get('verdict') || '',
    decision: params.get('decision') || '',
    library: params.get('library') || '',
    from: params.get('from') || '',
    to: params.get('to') || '',
  };
  const list = h('section', { 'aria-label': t('reports.list') }, loading());
  const options = (values, prefix, current) => [h('option', { value: '' }, t('reports.any')),
    ...values.map((v) => h('option', { value: v, selected: v === current }, t(`${prefix}.${v}`)))];
  const library = h('select', { name: 'library', id: 'filter-library' }, h('option', { value: '' }, t('reports.any')));
  const form = h('form', { class: 'panel filters no-print', id: 'report-filters' },
    h('div', { class: 'form-row' },
      h('div', { class: 'field' }, h('label', { for: 'filter-verdict' }, t('reports.verdict')),
        h('select', { name: 'verdict', id: 'filter-verdict' }, options(VERDICTS, 'verdict', chosen.verdict))),
      h('div', { class: 'field' }, h('label', { for: 'filter-decision' }, t('reports.decision')),
        h('select', { name: 'decision', id: 'filter-decision' }, options(DECISIONS, 'decision', chosen.decision))),
      h('div', { class: 'field' }, h('label', { for: 'filter-library' }, t('reports.library')), library),
      h('div', { class: 'field' }, h('label', { for: 'filter-from' }, t('reports.from')),
        h('input', { type: 'date', name: 'from', id: 'filter-from', value: chosen.from })),
      h('div', { class: 'field' }, h('label', { for: 'filter-to' }, t('reports.to')),
        h('input', { type: 'date', name: 'to', id: 'filter-to', value: chosen.to }))),
    h('div', { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, t('reports.apply')),
      h('a', { class: 'button', href: '#/reports' }, t('reports.clear'))));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const query = new URLSearchParams();
    for (const name of ['verdict', 'decision', 'library', 'from', 'to']) {
      const value = form.elements[name].value;
      if (value) query.set(name, value);
    }
    location.hash = `#/reports${query.toString() ? `?${query}` : ''}`;
  });
  fill(view, heading(t('reports.title'), t('reports.subtitle')), form, list);

  api('/api/v1/libraries?limit=1000').then(({ libraries }) => {
    for (const lib of libraries) library.append(h('option', { value: lib.id, selected: lib.id === chosen.library }, lib.name || lib.id));
    if (chosen.library && !libraries.some((lib) => lib.id === chosen.library)) {
      library.append(h('option', { value: chosen.library, selected: true }, chosen.library));
    }
  }).catch(() => {
    if (chosen.library) library.append(h('option', { value: chosen.library, selected: true }, chosen.library));
  });

  const query = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  if (chosen.verdict) query.set('verdict', chosen.verdict);
  if (chosen.decision) query.set('decision', chosen.decision);
  if (chosen.library) query.set('library', chosen.library);
  const from = dayToSeconds(chosen.from, false);
  const to = dayToSeconds(chosen.to, true);
  if (from !== null) query.set('from', String(from));
  if (to !== null) query.set('to', String(to));
  let page;
  try {
    page = await api(`/api/v1/reports?${query}`);
  } catch (error) {
    fill(list, errorNotice(error));
    return;
  }
  if (page.total === 0) {
    const filtered = Object.values(chosen).some(Boolean);
    fill(list, emptyState(filtered ? t('reports.none_filtered') : t('reports.none'),
      h('p', {}, filtered ? t('reports.none_filtered_hint') : [t('reports.none_hint'), ' ', h('a', { href: '#/check' }, t('nav.check'))])));
    return;
  }
  const pageLink = (to) => {
    const q = new URLSearchParams(params);
    q.set('offset', String(to));
    return `#/reports?${q}`;
  };
  fill(list,
    h('div', { class: 'table-wrap' }, h('table', { class: 'data reports', id: 'reports' },
      h('caption', {}, t('reports.caption', { from: number(offset + 1), to: number(offset + page.reports.length), total: number(page.total) })),
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, t('reports.when')),
        h('th', { scope: 'col' }, t('reports.manuscript')),
        h('th', { scope: 'col', class: 'num' }, t('report.similarity_index')),
        h('th', { scope: 'col' }, t('reports.verdict')),
        h('th', { scope: 'col' }, t('reports.decision')),
        h('th', { scope: 'col' }, t('reports.libraries')))),
      h('tbody', {}, page.reports.map((r) => h('tr', {},
        h('td', { 'data-label': t('reports.when') }, date(r.created)),
        h('td', { 'data-label': t('reports.manuscript') },
          h('a', { href: `#/reports/${path(r.report_id)}` }, r.file || t('reports.pasted_text')),
          h('div', { class: 'muted small' }, `${t('reports.words', { n: number(r.words) })} · ${t('reports.sources_n', { n: number(r.matches) })}`)),
        h('td', { class: 'num', 'data-label': t('report.similarity_index') }, percent(r.similarity_index ?? 0, 1)),
        h('td', { 'data-label': t('reports.verdict') }, badge(r.verdict, t(`verdict.${r.verdict}`))),
        h('td', { 'data-label': t('reports.decision') }, h('span', { class: `decision decision-${r.decision}` }, t(`decision.${r.decision}`))),
        h('td', { 'data-label': t('reports.libraries') }, Object.keys(r.libraries || {}).join(', ') || '—')))))),
    h('nav', { class: 'pager', 'aria-label': t('reports.pages') },
      offset > 0 ? h('a', { class: 'button', href: pageLink(Math.max(0, offset - PAGE)), rel: 'prev' }, t('reports.newer')) : h('span'),
      h('span', { class: 'muted' }, t('reports.page', { n: Math.floor(offset / PAGE) + 1, of: Math.ceil(page.total / PAGE) })),
      offset + PAGE < page.total ? h('a', { class: 'button', href: pageLink(offset + PAGE), rel: 'next' }, t('reports.older')) : h('span')));
}
