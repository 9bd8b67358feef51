// A stored report at `#/reports/{id}` — a permalink that survives a reload and can be sent:
// what was checked, the similarity index, the sources numbered with their colour and share, the
// manuscript with every passage marked by source and kind, a source side by side, exclusions
// applied again on the server (the address keeps them), flags, and the editor's decision with
// its history. Printing the page prints the report.

import { api, download, path } from './api.js';
import { badge, date, emptyState, errorNotice, fill, h, loading, number, percent } from './dom.js';
import { renderMarked, reveal, sourceClass } from './highlight.js';
import { errorText, lang, t, tn } from './i18n.js';

// The kinds a passage can have, and the exclusion toggle that leaves each out.
const KINDS = ['copied', 'quoted', 'bibliography', 'front_matter', 'boilerplate', 'small'];
const TOGGLES = [
  { name: 'quotes', kind: 'quoted' },
  { name: 'bibliography', kind: 'bibliography' },
  { name: 'front_matter', kind: 'front_matter' },
  { name: 'boilerplate', kind: 'boilerplate' },
];
export const DECISIONS = ['not_checked', 'candidate', 'unique', 'duplicate'];

// Whether a passage of `kind` counts under the report's exclusions.
export function passageCounts(kind, exclusions) {
  switch (kind) {
    case 'quoted': return !exclusions.quotes;
    case 'bibliography': return !exclusions.bibliography;
    case 'front_matter': return !exclusions.front_matter;
    case 'boilerplate': return !exclusions.boilerplate;
    case 'small': return !exclusions.small_matches;
    default: return true;
  }
}

// The API query that applies `exclusions` again (see GET /api/v1/reports/{id}).
export function exclusionQuery(exclusions) {
  const kinds = TOGGLES.filter((toggle) => exclusions[toggle.name]).map((toggle) => toggle.name);
  const query = new URLSearchParams();
  query.set('exclude', kinds.join(','));
  query.set('small_matches', String(exclusions.small_matches || 0));
  return query.toString();
}

// The report's name: the file, or the first words of the text.
export function reportName(report) {
  if (report.file) return report.file;
  const words = (report.text || '').split(/\s+/).filter(Boolean);
  return t('report.text_named', { start: words.slice(0, 8).join(' ') + (words.length > 8 ? '…' : '') });
}

// The words a report's figures are shares of: the answer's own `words` (a report kept before
// answers carried it: the text split at white space).
export function reportWords(report) {
  return report.words ?? (report.text || '').split(/\s+/).filter(Boolean).length;
}

// What the check found in a source, in words that say no more than happened: how much of the
// source was reused, or why it does not count.
export function finding(m) {
  if (m.counted === false) {
    return h('span', { class: 'muted' }, t(`report.not_counted_${m.not_counted || 'left_out_kinds'}`));
  }
  const share = percent(m.containment_doc ?? 0, 0);
  if (m.cross_language) {
    const { doc_lang: from, query_lang: to } = m.cross_language;
    return badge(m.verdict, t('report.translated', { share, from, to }));
  }
  return badge(m.verdict, t('report.reused', { share }));
}

// A match's title as the page shows it.
function sourceName(m) {
  return m.title || m.doc_id;
}

export async function reportView(view, id, params) {
  fill(view, loading());
  const asked = params.has('exclude') || params.has('small_matches') ? `?${params.toString()}` : '';
  let report;
  try {
    report = await api(`/api/v1/reports/${path(id)}${asked}`);
  } catch (error) {
    fill(view, h('p', { class: 'crumbs' }, h('a', { href: '#/reports' }, t('nav.reports'))), errorNotice(error));
    return;
  }
  const page = new ReportPage(view, report);
  page.render();
}

class ReportPage {
  constructor(view, report) {
    this.view = view;
    this.report = report;
    this.selected = -1;
    this.sourceTexts = new Map();
  }

  render() {
    const r = this.report;
    this.figures = h('section', { class: 'report-figures', 'aria-label': t('report.figures') });
    this.manuscript = h('section', { class: 'report-text', 'aria-label': t('report.manuscript') });
    fill(this.view,
      h('p', { class: 'crumbs no-print' }, h('a', { href: '#/reports' }, t('nav.reports')), ' › ', r.report_id),
      this.header(),
      this.figures,
      this.decisionPanel(),
      this.manuscript);
    this.renderFigures();
  }

  header() {
    const r = this.report;
    // The libraries that held a candidate, and how many more the check went to.
    const libraries = Object.entries(r.generations || {});
    const otherLibraries = Math.max(0, (r.libraries_checked || 0) - libraries.length);
    const pdfStatus = h('span', { class: 'muted small', role: 'status' });
    const pdf = h('button', { type: 'button', id: 'report-pdf' }, t('report.download_pdf'));
    pdf.addEventListener('click', async () => {
      pdf.disabled = true;
      pdfStatus.textContent = '';
      const language = lang();
      try {
        // The PDF shows what the page shows: the exclusions chosen here.
        const query = `lang=${language}&${exclusionQuery(this.report.exclusions || {})}`;
        await download(`/api/v1/reports/${path(r.report_id)}/pdf?${query}`, `dupfinder-report-${r.report_id}-${language}.pdf`);
      } catch (error) {
        pdfStatus.textContent = errorText(error);
      } finally {
        pdf.disabled = false;
      }
    });
    const print = h('button', { type: 'button', onclick: () => window.print() }, t('report.print'));
    return h('header', { class: 'report-head' },
      h('p', { class: 'report-kicker' }, t('report.kicker')),
      h('h1', {}, reportName(r)),
      h('dl', { class: 'meta report-meta' },
        h('dt', {}, t('report.checked_on')), h('dd', {}, date(r.created)),
        r.document ? [h('dt', {}, t('report.file')), h('dd', {}, `${r.document.name} — ${r.document.format.toUpperCase()}`,
          r.document.pages ? `, ${tn('unit.pages', r.document.pages)}` : '')] : null,
        h('dt', {}, t('report.words')), h('dd', { id: 'report-words' }, number(reportWords(r))),
        h('dt', {}, t('report.libraries')),
        h('dd', {}, libraries.length === 0 && !otherLibraries ? t('report.no_libraries')
          : libraries.map(([lib, generation], i) => [i ? ', ' : '', h('span', { class: 'library-name' }, lib),
            h('span', { class: 'muted' }, ` (${t('report.index_version', { n: generation })})`)]),
          otherLibraries ? h('span', { class: 'muted' }, `${libraries.length ? ', ' : ''}${t('report.libraries_without', { n: number(otherLibraries) })}`) : null),
        h('dt', {}, t('report.submitted_by')), h('dd', {}, r.submitter === '-' ? t('report.open_server') : r.submitter),
        h('dt', {}, t('report.id')), h('dd', { class: 'mono' }, r.report_id)),
      h('p', { class: 'actions no-print' }, pdf, print, pdfStatus));
  }

  // The index, the sources, the shares by kind, the toggles and the flags: everything the
  // exclusions change.
  renderFigures() {
    const r = this.report;
    const matches = r.matches.map((m, i) => ({ ...m, index: i, number: i + 1 }));
    this.matches = matches;
    const index = r.similarity_index ?? 0;
    const verdict = r.verdict;
    const indexBox = h('div', { class: `index-box verdict-${verdict}` },
      h('p', { class: 'index-label' }, t('report.similarity_index')),
      h('p', { class: 'index-value', id: 'similarity-index' }, percent(index, 1)),
      h('p', { class: 'index-verdict' }, badge(verdict, t(`verdict.${verdict}`))),
      h('p', { class: 'index-explain' }, t('report.index_explain', { index: percent(index, 1) })));
    const sources = matches.length === 0
      ? emptyState(t('report.no_sources'), h('p', {}, t('report.no_sources_hint')))
      : h('div', { class: 'table-wrap' }, h('table', { class: 'data sources', id: 'sources' },
        h('caption', {}, t('report.sources_caption')),
        h('thead', {}, h('tr', {},
          h('th', { scope: 'col', class: 'num' }, '№'),
          h('th', { scope: 'col' }, t('report.source')),
          h('th', { scope: 'col', class: 'num' }, t('report.share')),
          h('th', { scope: 'col' }, t('report.finding')),
          h('th', { scope: 'col', class: 'no-print' }, h('span', { class: 'visually-hidden' }, t('report.compare'))))),
        h('tbody', {}, matches.map((m) => h('tr', { dataset: { match: m.index }, class: m.counted === false ? 'not-counted' : null },
          h('td', { class: 'num', 'data-label': '№' }, h('span', { class: `source-number ${sourceClass(m.index)}` }, m.number)),
          h('td', { 'data-label': t('report.source') },
            h('a', { href: `#/libraries/${path(m.library)}/documents/${path(m.doc_id)}` }, sourceName(m)),
            h('div', { class: 'muted small' }, `${m.library} · ${m.doc_id}`)),
          h('td', { class: 'num share', 'data-label': t('report.share') }, percent(m.share || 0, 1)),
          h('td', { 'data-label': t('report.finding') }, finding(m)),
          h('td', { class: 'no-print' }, h('button', { type: 'button', class: 'small', onclick: () => this.select(m.index, true) }, t('report.compare')))))),
        h('tfoot', {}, h('tr', {},
          h('td', {}, ''),
          h('th', { scope: 'row' }, t('report.sources_total')),
          h('td', { class: 'num', id: 'shares-total' }, percent(index, 1)),
          h('td', { colspan: 2, class: 'muted small' }, t('report.sources_total_note'))))));
    fill(this.figures,
      h('div', { class: 'report-summary' }, indexBox,
        h('div', { class: 'report-sources' }, h('h2', {}, t('report.sources')), sources)),
      h('div', { class: 'report-options' }, this.kindsTable(), this.toggles()),
      this.flags(),
      r.hidden_matches ? h('p', { class: 'notice warn' }, tn('report.hidden_matches', r.hidden_matches)) : null);
    this.renderManuscript();
  }

  kindsTable() {
    const r = this.report;
    return h('div', { class: 'kinds' },
      h('h2', {}, t('report.kinds')),
      h('p', { class: 'hint' }, t('report.kinds_hint')),
      h('table', { class: 'kinds-table', id: 'kinds' },
        h('tbody', {}, KINDS.map((kind) => h('tr', {},
          h('th', { scope: 'row' }, h('span', { class: `kind-sample kind-${kind}`, 'aria-hidden': 'true' }), t(`kind.${kind}`)),
          h('td', { class: 'num' }, percent(r.shares?.[kind] ?? 0, 1)),
          h('td', { class: 'small' }, passageCounts(kind, r.exclusions || {})
            ? t('report.counted') : h('span', { class: 'muted' }, t('report.left_out'))))))));
  }

  toggles() {
    const exclusions = { ...(this.report.exclusions || {}) };
    const status = h('p', { class: 'hint', role: 'status' });
    const boxes = TOGGLES.map((toggle) => h('label', { class: 'check' },
      h('input', { type: 'checkbox', name: toggle.name, checked: !!exclusions[toggle.name] }),
      ` ${t(`exclude.${toggle.name}`)}`));
    const smallBox = h('input', { type: 'checkbox', name: 'small', checked: (exclusions.small_matches || 0) > 0 });
    const smallWords = h('input', {
      type: 'number', name: 'small_matches', min: 1, max: 500, class: 'words-input',
      value: exclusions.small_matches || 8, 'aria-label': t('exclude.small_words'),
    });
    const form = h('form', { class: 'toggles no-print', id: 'exclusions' },
      h('fieldset', {}, h('legend', {}, t('report.exclusions')),
        ...boxes,
        h('label', { class: 'check small-line' }, smallBox, ` ${t('exclude.small_before')} `, smallWords, ` ${t('exclude.small_after')}`),
        status));
    form.addEventListener('change', async () => {
      const asked = {};
      for (const toggle of TOGGLES) asked[toggle.name] = form.elements[toggle.name].checked;
      asked.small_matches = smallBox.checked ? Math.max(1, Number(smallWords.value) || 8) : 0;
      const query = exclusionQuery(asked);
      status.textContent = t('report.recomputing');
      form.querySelectorAll('input').forEach((input) => { input.disabled = true; });
      try {
        this.report = await api(`/api/v1/reports/${path(this.report.report_id)}?${query}`);
        history.replaceState(null, '', `#/reports/${path(this.report.report_id)}?${query}`);
        const keep = this.selected;
        this.renderFigures();
        if (keep >= 0 && keep < this.matches.length) await this.select(keep, false);
      } catch (error) {
        status.replaceChildren(errorNotice(error));
        form.querySelectorAll('input').forEach((input) => { input.disabled = false; });
      }
    });
    // The printed report says which exclusions apply.
    const printed = h('p', { class: 'print-only small' }, t('report.printed_exclusions', {
      list: [...TOGGLES.filter((toggle) => exclusions[toggle.name]).map((toggle) => t(`kind.${toggle.kind}`)),
        exclusions.small_matches ? t('report.printed_small', { n: exclusions.small_matches }) : null]
        .filter(Boolean).join('; ') || t('report.nothing_left_out'),
    }));
    return h('div', {}, form, printed);
  }

  flags() {
    const flags = this.report.flags || [];
    if (flags.length === 0) return null;
    return h('section', { class: 'notice warn flags', id: 'flags' },
      h('h2', {}, t('report.flags')),
      h('p', {}, t('report.flags_intro')),
      h('ul', {}, flags.map((flag) => {
        const known = t(`flag.${flag.kind}`, {}, null);
        return h('li', {}, known || flag.message, flag.count ? ` (${tn('unit.times', flag.count)})` : '');
      })));
  }

  renderManuscript() {
    const r = this.report;
    const matches = this.matches;
    if (matches.length === 0) {
      fill(this.manuscript);
      return;
    }
    const exclusions = r.exclusions || {};
    const spans = [];
    let withoutPassages = false;
    for (const m of matches) {
      if (!m.passages) withoutPassages = true;
      (m.passages || []).forEach((p, j) => {
        const live = m.counted !== false && passageCounts(p.kind, exclusions);
        spans.push({
          start: p.query.start, end: p.query.end, source: m.index, key: `${m.index}-${j}`,
          number: m.number, kind: p.kind, muted: !live,
          label: t('report.passage_label', { kind: t(p.translated ? 'kind.translated' : `kind.${p.kind}`), n: m.number, source: sourceName(m) })
            + (p.kind === 'quoted' && p.cited === false ? ` ${t('report.no_citation')}` : '')
            + (live ? '' : ` ${t('report.passage_left_out')}`),
        });
      });
    }
    // Counted passages first: where passages overlap, the counted one shows.
    spans.sort((a, b) => Number(a.muted) - Number(b.muted) || a.start - b.start);
    this.left = h('div', { class: 'pane-text', id: 'pane-query', tabindex: 0, 'aria-label': t('report.manuscript') });
    this.right = h('div', { class: 'pane-text', id: 'pane-source', tabindex: 0, 'aria-label': t('report.source_text') });
    this.rightTitle = h('h3', {});
    const legend = h('ul', { class: 'legend', 'aria-label': t('report.legend') },
      matches.map((m) => h('li', {}, h('span', { class: `swatch ${sourceClass(m.index)}`, 'aria-hidden': 'true' }), `${m.number}. ${sourceName(m)}`)),
      h('li', {}, h('span', { class: 'swatch muted-swatch', 'aria-hidden': 'true' }), t('report.muted_legend')));
    fill(this.manuscript,
      h('h2', {}, t('report.manuscript_title')),
      h('p', { class: 'hint no-print' }, t('report.manuscript_hint')),
      withoutPassages ? h('p', { class: 'notice warn' }, t('report.without_passages')) : null,
      legend,
      h('div', { class: 'panes' },
        h('div', { class: 'pane' }, h('h3', {}, t('report.manuscript')), this.left),
        h('div', { class: 'pane source-pane' }, this.rightTitle, this.right)));
    renderMarked(this.left, r.text || '', spans, (span) => this.activate(span.key));
    if (this.selected < 0) this.select(0, false);
  }

  async select(index, scroll) {
    this.selected = index;
    const m = this.matches[index];
    this.figures.querySelectorAll('#sources tbody tr').forEach((tr) => tr.classList.toggle('selected', Number(tr.dataset.match) === index));
    fill(this.rightTitle, h('span', { class: `swatch ${sourceClass(index)}`, 'aria-hidden': 'true' }), `${m.number}. ${sourceName(m)}`);
    if (!this.sourceTexts.has(index)) {
      fill(this.right, loading());
      try {
        const doc = await api(`/api/v1/libraries/${path(m.library)}/documents/${path(m.doc_id)}`);
        this.sourceTexts.set(index, doc.text);
      } catch (error) {
        fill(this.right, errorNotice(error));
        return;
      }
    }
    const exclusions = this.report.exclusions || {};
    const spans = (m.passages || []).map((p, j) => ({
      start: p.doc.start, end: p.doc.end, source: index, key: `${index}-${j}`, number: m.number, kind: p.kind,
      muted: m.counted === false || !passageCounts(p.kind, exclusions),
      label: t('report.source_passage_label', { kind: t(p.translated ? 'kind.translated' : `kind.${p.kind}`) }),
    }));
    renderMarked(this.right, this.sourceTexts.get(index), spans, (span) => this.activate(span.key));
    if (scroll && spans.length) this.activate(spans[0].key);
    if (scroll) this.manuscript.scrollIntoView({ behavior: 'smooth', block: 'start' });
  }

  async activate(key) {
    const index = Number(key.split('-')[0]);
    if (index !== this.selected) await this.select(index, false);
    reveal(this.left, key);
    reveal(this.right, key);
  }

  decisionPanel() {
    const r = this.report;
    const select = h('select', { id: 'decision', name: 'decision' },
      DECISIONS.map((d) => h('option', { value: d, selected: d === r.decision }, t(`decision.${d}`))));
    const note = h('textarea', { id: 'decision-note', rows: 2, maxlength: 4000, placeholder: t('decision.note_placeholder') });
    note.value = r.note || '';
    const status = h('p', { class: 'hint', role: 'status' });
    const save = h('button', { type: 'submit', class: 'primary' }, t('decision.save'));
    const historyBox = h('div', { class: 'decision-history' });
    const showHistory = (entries) => fill(historyBox, entries.length === 0
      ? h('p', { class: 'muted small' }, t('decision.no_history'))
      : h('ol', { class: 'history', reversed: true }, [...entries].reverse().map((change) => h('li', {},
        h('span', { class: 'history-when' }, date(change.at)), ' — ',
        h('strong', {}, t(`decision.${change.decision}`)),
        ` · ${change.by === '-' ? t('decision.by_anyone') : t('decision.by', { name: change.by })}`,
        change.note ? h('span', { class: 'history-note' }, ` «${change.note}»`) : null))));
    showHistory(r.history || []);
    const current = h('p', { class: 'print-only' }, t('decision.current', { decision: t(`decision.${r.decision}`) }), r.note ? ` — ${r.note}` : '');
    const form = h('form', { class: 'panel decision-form', id: 'decision-form' },
      h('h2', {}, t('decision.title')),
      current,
      h('div', { class: 'form-row no-print' },
        h('div', { class: 'field decision-field' }, h('label', { for: 'decision' }, t('decision.label')), select),
        h('div', { class: 'field' }, h('label', { for: 'decision-note' }, t('decision.note')), note)),
      h('div', { class: 'actions no-print' }, save, status),
      h('h3', {}, t('decision.history')),
      historyBox);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      save.disabled = true;
      status.textContent = '';
      try {
        const body = { decision: select.value };
        if (note.value !== (this.report.note || '')) body.note = note.value;
        const updated = await api(`/api/v1/reports/${path(r.report_id)}`, { method: 'PATCH', body });
        this.report.decision = updated.decision;
        this.report.note = updated.note;
        this.report.history = updated.history;
        showHistory(updated.history || []);
        fill(current, t('decision.current', { decision: t(`decision.${updated.decision}`) }), updated.note ? ` — ${updated.note}` : '');
        status.textContent = t('decision.saved');
      } catch (error) {
        status.replaceChildren(errorNotice(error));
      } finally {
        save.disabled = false;
      }
    });
    return form;
  }
}
