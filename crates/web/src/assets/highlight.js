// Marks passages in a text. Offsets are Unicode code points, as the API gives them, so the
// text is sliced as an array of code points, never by UTF-16 index.

// Eight colours that stay distinct side by side; a source keeps its colour everywhere.
export const SOURCE_COLOURS = 8;

export function sourceClass(index) {
  return `src-${index % SOURCE_COLOURS}`;
}

// Renders `text` into `container` with each span {start, end, source, key, label} in a <mark>;
// a span may carry its `kind` (a class), `muted` (a passage that does not count) and the
// source's `number` (shown where the passage begins).
// Where spans overlap, the one listed first wins. `onActivate(span)` runs on click or Enter.
export function renderMarked(container, text, spans, onActivate) {
  const chars = Array.from(text);
  const n = chars.length;
  const clipped = spans
    .map((s) => ({ ...s, start: Math.max(0, Math.min(n, s.start)), end: Math.max(0, Math.min(n, s.end)) }))
    .filter((s) => s.start < s.end);
  const cuts = new Set([0, n]);
  for (const s of clipped) {
    cuts.add(s.start);
    cuts.add(s.end);
  }
  const points = [...cuts].sort((a, b) => a - b);
  const fragment = document.createDocumentFragment();
  let open = null;
  let openSpan = null;
  for (let i = 0; i + 1 < points.length; i++) {
    const [a, b] = [points[i], points[i + 1]];
    const piece = chars.slice(a, b).join('');
    const span = clipped.find((s) => s.start <= a && b <= s.end) || null;
    if (span === null) {
      open = null;
      openSpan = null;
      fragment.append(piece);
      continue;
    }
    if (span !== openSpan) {
      open = document.createElement('mark');
      open.className = `passage ${sourceClass(span.source)}${span.kind ? ` kind-${span.kind}` : ''}${span.muted ? ' muted' : ''}`;
      open.dataset.passage = span.key;
      open.tabIndex = 0;
      open.setAttribute('role', 'button');
      open.setAttribute('aria-label', span.label);
      open.title = span.label;
      const target = span;
      open.addEventListener('click', () => onActivate(target));
      open.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          onActivate(target);
        }
      });
      fragment.append(open);
      // The source's number where its passage begins, so a printed page still tells sources apart.
      if (span.number !== undefined && a === span.start) {
        const mark = document.createElement('sup');
        mark.className = 'source-mark';
        mark.setAttribute('aria-hidden', 'true');
        mark.textContent = span.number;
        open.append(mark);
      }
      openSpan = span;
    }
    open.append(piece);
  }
  container.replaceChildren(fragment);
}

// Scrolls `pane` (a scrolling box) so that the passage `key` is in view, and flashes it.
export function reveal(pane, key) {
  const mark = pane.querySelector(`mark[data-passage="${CSS.escape(key)}"]`);
  if (!mark) return null;
  const top = mark.getBoundingClientRect().top - pane.getBoundingClientRect().top + pane.scrollTop;
  pane.scrollTo({ top: Math.max(0, top - pane.clientHeight / 4), behavior: 'smooth' });
  pane.querySelectorAll('mark.current').forEach((m) => m.classList.remove('current'));
  pane.querySelectorAll(`mark[data-passage="${CSS.escape(key)}"]`).forEach((m) => m.classList.add('current'));
  return mark;
}
