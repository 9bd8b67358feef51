// Documents for the browser tests: six short abstracts written for these tests, and a
// manuscript that copies passages from two of them.

export const documents = [
  {
    id: 'glacier-2019',
    title: 'Ocean-driven retreat of a West Greenland outlet glacier',
    authors: ['Amina Okafor', 'Lars Henriksen'],
    year: 2019,
    text: 'Warm subsurface water reached the fjord in the summer of 2016 and the calving front of the glacier began a retreat that continued for three years. We combine repeat airborne surveys, moored temperature records and a numerical plume model to separate the roles of ocean heat and surface melt. Submarine melting at the terminus increased by roughly half when the warm layer thickened, while runoff changed little between years. The retreat stopped only where the bed rises onto a shallow sill, which suggests that bed topography controls how far the ice front can withdraw once warm water arrives.',
  },
  {
    id: 'roofs-2021',
    title: 'Rooftop versus street-level cooling from urban green roofs',
    authors: ['Mei Tanaka'],
    year: 2021,
    text: 'Green roofs are often promoted as a way to cool cities during heat waves, yet most measurements are taken on the roof itself rather than in the street where people walk. We installed paired sensors on twelve vegetated and twelve conventional roofs and at pedestrian height below each building over two summers. Vegetated roofs were much cooler at the surface during the afternoon, but the difference at street level was small and disappeared entirely in wide avenues with steady wind. Planting trees along the pavement produced a larger cooling effect for pedestrians than any of the roofs we studied.',
  },
  {
    id: 'ocr-2020',
    title: 'Post-correction of OCR errors in nineteenth-century regional newspapers',
    authors: ['Jan Novak', 'Eva Dvorakova'],
    year: 2020,
    text: 'Digitised newspapers from the nineteenth century contain many recognition errors caused by worn type, bleed-through and unusual fonts. We build a corpus of manually corrected pages from six regional titles and train a character-level sequence model that proposes corrections for each line. The model reduces the word error rate by a third on held-out pages and performs best on frequent function words and common place names. Rare surnames and numbers remain difficult, so we recommend that archives keep the original scan beside the corrected text for every search result shown to readers.',
  },
  {
    id: 'bees-2018',
    title: 'Colony-level compensation for sublethal insecticide exposure in honeybees',
    authors: ['Lucia Ferrante'],
    year: 2018,
    text: 'Individual honeybees exposed to low doses of neonicotinoid insecticides forage less efficiently, but colonies may compensate by recruiting more foragers. We fed twenty colonies with contaminated or clean syrup and tracked every forager with radio tags for eight weeks. Exposed colonies sent out more foragers and kept their honey stores close to those of control colonies during the first month. The compensation failed later in the season, when brood production fell and the exposed colonies entered the winter with fewer workers, which points to delayed rather than immediate harm.',
  },
  {
    id: 'wind-2022',
    title: 'Atmospheric stability and wake losses in a large offshore wind farm',
    authors: ['Pieter de Vries', 'Amina Okafor'],
    year: 2022,
    text: 'Turbines standing downstream of other turbines produce less power because they operate in the slower, more turbulent air of the wakes. Using five years of supervisory data from a large offshore wind farm together with lidar profiles of the marine boundary layer, we show that wake losses depend strongly on atmospheric stability. Under stable conditions at night the wakes persist for many kilometres and the losses of the farm more than double. Engineering wake models calibrated on neutral conditions underestimate annual losses, and we propose a simple stability correction that removes most of the bias.',
  },
  {
    id: 'dyslexia-2017',
    title: 'Letter spacing, not typeface, affects reading in children with dyslexia',
    authors: ['Sofia Marques'],
    year: 2017,
    text: 'Special typefaces are marketed to help children with dyslexia read more fluently, but their designs change several properties of the text at the same time. We asked ninety children with and without dyslexia to read short passages in which typeface and letter spacing varied independently. Wider letter spacing improved reading speed and accuracy for the children with dyslexia, whereas the typeface had no measurable effect once spacing was held constant. Schools can therefore obtain the benefit claimed for special fonts by adjusting the spacing of ordinary ones at no cost.',
  },
];

// A single document typed into the form.
export const typed = {
  title: 'Reef soundscapes as indicators of health',
  authors: 'Kofi Mensah; Ana Lima',
  year: '2023',
  text: 'Healthy coral reefs are noisy places full of snapping shrimp and grunting fish, while degraded reefs fall quiet. We recorded the soundscape of restored and degraded reef plots for a year and found that acoustic diversity recovered within months of restoration, well before the coral cover did.',
};

// A manuscript: an original opening, a passage copied from the glacier paper, one from the
// green roofs paper, and an original ending.
export const manuscript = [
  'This report reviews how coastal and urban environments respond to a warming climate and what managers can learn from recent field studies.',
  'We combine repeat airborne surveys, moored temperature records and a numerical plume model to separate the roles of ocean heat and surface melt. Submarine melting at the terminus increased by roughly half when the warm layer thickened, while runoff changed little between years.',
  'In cities the picture is different. We installed paired sensors on twelve vegetated and twelve conventional roofs and at pedestrian height below each building over two summers. Vegetated roofs were much cooler at the surface during the afternoon, but the difference at street level was small.',
  'Taken together, these findings argue for local measurements before large investments are made in adaptation.',
].join('\n\n');

export const htmlPage = `<!doctype html><html><head><title>Draft</title><style>p{color:red}</style></head>
<body><nav>Menu</nav><h1>Draft chapter</h1><p>Wider letter spacing improved reading speed and accuracy for the children with dyslexia, whereas the typeface had no measurable effect once spacing was held constant.</p><script>var x = 1;</script></body></html>`;

// A tiny journal site for the crawler: a contents page linking four articles.
export function sitePage(path) {
  const articles = documents.slice(2, 6);
  if (path === '/') {
    const links = articles.map((d, i) => `<li><a href="/article/${i + 1}">${d.title}</a></li>`).join('');
    return `<!doctype html><html><head><title>Demo site</title></head><body><h1>Contents</h1><ul>${links}</ul></body></html>`;
  }
  const found = /^\/article\/(\d+)$/.exec(path);
  const article = found && articles[Number(found[1]) - 1];
  if (!article) return null;
  // The same studies, retold: a second library with related but different texts.
  const text = article.text.split('. ').reverse().join('. ');
  return `<!doctype html><html><head><title>${article.title}</title>
<meta name="citation_title" content="${article.title} (site edition)"></head>
<body><article><h1>${article.title}</h1><p>${text}</p></article></body></html>`;
}

// A small library holding two versions of one paper (a workshop version and the journal
// version, one sentence reworded) and two unrelated papers: the dedup job makes one cluster.
export const twins = [
  documents[2],
  {
    ...documents[2],
    id: 'ocr-2020-journal',
    year: 2021,
    text: documents[2].text.replace('The model reduces the word error rate by a third on held-out pages', 'On held-out pages the model cuts the word error rate by a third'),
  },
  documents[3],
  documents[5],
];
