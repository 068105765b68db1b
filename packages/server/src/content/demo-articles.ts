import type {
  ArticleInput,
  CalloutBlock,
  CodeBlock,
  HeadingBlock,
  ListBlock,
  ParagraphBlock,
  TextRun,
} from '@folio/schema';

/**
 * The demo blog the server seeds: Fernhill, a two-person web-performance consultancy. The
 * articles link to each other under `/blog` and together use every block type, so a fresh
 * install shows a realistic site and exercises every renderer path.
 */

/** A demo article: the ingest body plus the id and first-publish time the seed gives it. */
export interface DemoArticle extends ArticleInput {
  id: string;
  /** ISO 8601 UTC with milliseconds. */
  publishedAt: string;
}

/** A text run, or plain text for a run without marks. */
type Run = TextRun | string;

function toRuns(parts: Run[]): TextRun[] {
  return parts.map((part) => (typeof part === 'string' ? { text: part } : part));
}

const bold = (text: string): TextRun => ({ text, bold: true });
const italic = (text: string): TextRun => ({ text, italic: true });
const code = (text: string): TextRun => ({ text, code: true });
const link = (text: string, href: string, rel?: string): TextRun =>
  rel === undefined ? { text, href } : { text, href, rel };

function heading(level: 2 | 3 | 4, text: string, id?: string): HeadingBlock {
  return id === undefined ? { type: 'heading', level, text } : { type: 'heading', id, level, text };
}

function paragraph(...parts: Run[]): ParagraphBlock {
  return { type: 'paragraph', content: toRuns(parts) };
}

function list(ordered: boolean, items: Array<Run | Run[]>): ListBlock {
  return { type: 'list', ordered, items: items.map((item) => toRuns(Array.isArray(item) ? item : [item])) };
}

function callout(variant: CalloutBlock['variant'], ...parts: Run[]): CalloutBlock {
  return { type: 'callout', variant, content: toRuns(parts) };
}

function codeBlock(source: string, language?: string): CodeBlock {
  return language === undefined ? { type: 'code', code: source } : { type: 'code', code: source, language };
}

const IMAGES = 'https://images.example.com/fernhill';

export const demoArticles: DemoArticle[] = [
  {
    id: 'a001',
    slug: 'hello-from-fernhill',
    title: 'Hello from Fernhill: fast websites, plainly explained',
    publishedAt: '2026-01-22T09:15:00.000Z',
    published: true,
    seo: {
      title: 'Hello from Fernhill | Web performance consultancy',
      description:
        'Fernhill is a two-person web-performance consultancy. This blog is where we write down what we learn making real sites faster.',
    },
    blocks: [
      paragraph(
        'Fernhill is two people, a shared calendar and a stubborn belief that most slow websites are slow for ',
        italic('boring'),
        ' reasons. Not because the framework is wrong or the team is careless, but because nobody had the time to look at a waterfall chart for an afternoon and ask what each line is doing there.',
      ),
      paragraph(
        'We have spent the last eight years doing exactly that for shops, newsrooms, charities and the occasional SaaS dashboard. This blog is where we write down what we learn, in plain language, with the numbers attached.',
      ),
      heading(2, 'What we actually do'),
      paragraph(
        'A typical engagement starts with two weeks of measurement. We collect field data from real visitors, reproduce the slowest journeys in the lab, and hand over a short, ranked list of changes with an estimate for each. Then, if you want us to, we help your team ship them.',
      ),
      list(false, [
        [bold('Audits'), ': a written report with a ranked list of fixes and the evidence behind each one.'],
        [bold('Pairing'), ': a few days inside your codebase, shipping the top items with your developers.'],
        [bold('Guard rails'), ': performance budgets in CI and real-user monitoring, so the gains stay.'],
      ]),
      {
        type: 'image',
        url: `${IMAGES}/studio-desk.jpg`,
        alt: 'Two laptops on a wooden desk, one showing a network waterfall chart',
        caption: 'Most of our work starts here: a waterfall chart and a cup of tea.',
        width: 1600,
        height: 900,
      },
      heading(2, 'What to expect from this blog'),
      paragraph(
        'We will publish roughly once a month. Some posts are explainers, like our guide to ',
        link('Core Web Vitals in plain language', '/blog/core-web-vitals-in-plain-language'),
        '. Some are hands-on fixes you can apply in an afternoon. A few are case studies, anonymised where our clients asked us to.',
      ),
      paragraph(
        'We will not publish listicles of forty tips, benchmark wars between frameworks, or anything we have not measured ourselves. If a post says a change saved 600 milliseconds, there is a before-and-after trace behind it.',
      ),
      {
        type: 'cta',
        heading: 'Is your site slower than it should be?',
        body: 'Send us a link and tell us which page matters most. We reply within two working days with a first impression, free of charge.',
        buttonLabel: 'Get in touch',
        buttonHref: '/contact',
      },
    ],
  },
  {
    id: 'a002',
    slug: 'core-web-vitals-in-plain-language',
    title: 'Core Web Vitals in plain language',
    publishedAt: '2026-02-10T08:30:00.000Z',
    published: true,
    related: ['fixing-a-slow-hero-image', 'breaking-up-long-tasks-for-inp', 'layout-shift-reserve-the-space'],
    seo: {
      description:
        'LCP, INP and CLS explained without jargon: what each metric measures, the thresholds that count as good, and where to start when one is red.',
      jsonLd: {
        '@context': 'https://schema.org',
        '@type': 'FAQPage',
        mainEntity: [
          {
            '@type': 'Question',
            name: 'Do Core Web Vitals affect search ranking?',
            acceptedAnswer: {
              '@type': 'Answer',
              text: 'They are one of many page experience signals. Relevance matters far more, but between similar pages a faster one has an edge, and visitors notice the difference immediately.',
            },
          },
          {
            '@type': 'Question',
            name: 'Why does my Lighthouse score disagree with Search Console?',
            acceptedAnswer: {
              '@type': 'Answer',
              text: 'Lighthouse runs one simulated visit on one device. Search Console reports the 75th percentile of real visits over 28 days. Trust the field data and use the lab to debug.',
            },
          },
        ],
      },
    },
    blocks: [
      paragraph(
        'Core Web Vitals are three numbers Google uses to describe how a page ',
        italic('feels'),
        ' to the people visiting it: how quickly the main content appears, how quickly the page responds when you interact with it, and how much things jump around while it loads. This post explains each one without the jargon.',
      ),
      paragraph(
        'If you only want the thresholds, skip to ',
        link('the table below', '#thresholds'),
        '. If you want the official definitions, the ',
        link('web.dev documentation', 'https://web.dev/articles/vitals', 'noopener'),
        ' is thorough and kept up to date.',
      ),
      heading(2, 'Largest Contentful Paint (LCP)'),
      paragraph(
        'LCP is the time from the start of navigation until the largest image or text block in the viewport has been drawn. On most pages that is the hero image or the headline. It answers the question a visitor silently asks in the first second: ',
        italic('is this page actually loading?'),
      ),
      heading(2, 'Interaction to Next Paint (INP)'),
      paragraph(
        'INP replaced First Input Delay as a Core Web Vital in March 2024. It observes every click, tap and key press during the visit and reports one of the slowest: the time from the interaction until the browser could paint the next frame. A page with a good INP feels ',
        bold('immediate'),
        '; one with a poor INP feels like it is wading through mud.',
      ),
      heading(2, 'Cumulative Layout Shift (CLS)'),
      paragraph(
        'CLS measures how much visible content moves unexpectedly. The classic example is the button that slides away just as you tap it, because an advert or a late web font pushed it down. It is a score, not a time, and smaller is better.',
      ),
      heading(2, 'The thresholds', 'thresholds'),
      paragraph(
        'Each metric is judged at the 75th percentile of real page loads, separately for mobile and desktop. In other words, three out of four visits must meet the threshold for the page to pass.',
      ),
      {
        type: 'table',
        headers: ['Metric', 'Good', 'Needs improvement', 'Poor'],
        rows: [
          ['LCP', '≤ 2.5 s', '2.5 s – 4.0 s', '> 4.0 s'],
          ['INP', '≤ 200 ms', '200 ms – 500 ms', '> 500 ms'],
          ['CLS', '≤ 0.1', '0.1 – 0.25', '> 0.25'],
        ],
      },
      callout(
        'info',
        'Lab tools such as Lighthouse cannot measure INP, because nobody interacts with the page during a lab run. They report ',
        code('Total Blocking Time'),
        ' instead, which tends to move in the same direction.',
      ),
      heading(3, 'Where to start'),
      paragraph(
        'Start with whichever metric is worst on your most valuable template, usually the product page or the article page rather than the home page. We have written separate guides for ',
        link('a slow hero image', '/blog/fixing-a-slow-hero-image'),
        ', ',
        link('long tasks that hurt INP', '/blog/breaking-up-long-tasks-for-inp'),
        ' and ',
        link('layout shift', '/blog/layout-shift-reserve-the-space'),
        '.',
      ),
      {
        type: 'faq',
        items: [
          {
            question: 'Do Core Web Vitals affect search ranking?',
            answer: toRuns([
              'They are one of many page experience signals. Relevance matters far more, but between similar pages a faster one has an edge, and visitors notice the difference immediately.',
            ]),
          },
          {
            question: 'Why does my Lighthouse score disagree with Search Console?',
            answer: toRuns([
              'Lighthouse runs one simulated visit on one device. Search Console reports the ',
              bold('75th percentile of real visits over 28 days'),
              '. Trust the field data and use the lab to debug.',
            ]),
          },
        ],
      },
    ],
  },
  {
    id: 'a003',
    slug: 'fixing-a-slow-hero-image',
    title: 'Fixing a slow hero image in four steps',
    publishedAt: '2026-03-05T10:00:00.000Z',
    published: true,
    related: ['core-web-vitals-in-plain-language', 'layout-shift-reserve-the-space'],
    blocks: [
      paragraph(
        'On roughly two thirds of the sites we audit, the Largest Contentful Paint element is an image, and most of the time it is the big hero image at the top of the page. The good news is that a slow hero image is one of the most fixable problems in web performance. The four steps below usually take an afternoon.',
      ),
      heading(2, 'Find out why it is slow'),
      paragraph(
        'An LCP time is the sum of four parts: time to first byte, the delay before the browser ',
        italic('starts'),
        ' loading the image, the download itself, and the delay before it is painted. Open the Performance panel in Chrome DevTools, record a reload, and look at the LCP marker: the breakdown tells you which part dominates.',
      ),
      paragraph(
        'In our experience the second part, the ',
        bold('resource load delay'),
        ', is the usual culprit. The browser discovers the image late because it is set in CSS, injected by JavaScript, or marked as lazy.',
      ),
      heading(2, 'The four steps'),
      list(true, [
        [
          'Put the image in the HTML as a real ',
          code('<img>'),
          ', not a CSS background or a client-side render.',
        ],
        ['Remove ', code('loading="lazy"'), ' from it. Lazy loading is for images below the fold.'],
        ['Add ', code('fetchpriority="high"'), ' so the browser fetches it before other images.'],
        [
          'Serve a modern format (AVIF or WebP) in a size that matches the layout, using ',
          code('srcset'),
          '.',
        ],
      ]),
      codeBlock(
        `<img
  src="/img/hero-1200.avif"
  srcset="/img/hero-800.avif 800w, /img/hero-1200.avif 1200w, /img/hero-1800.avif 1800w"
  sizes="(min-width: 1200px) 1200px, 100vw"
  width="1200"
  height="600"
  fetchpriority="high"
  alt="A barista pouring latte art">`,
        'html',
      ),
      heading(3, 'When the image lives in CSS'),
      paragraph(
        'Sometimes the design really does need a CSS background. In that case, tell the browser about the image early with a preload in the document head, including the same priority hint:',
      ),
      codeBlock(
        '<link rel="preload" as="image" href="/img/hero-1200.avif" type="image/avif" fetchpriority="high">',
        'html',
      ),
      heading(4, 'A note on responsive preloads'),
      paragraph(
        'If the image is responsive, use ',
        code('imagesrcset'),
        ' and ',
        code('imagesizes'),
        ' on the preload so it matches what the page will actually request. A preload for the wrong size is worse than none: the browser downloads two images.',
      ),
      callout(
        'tip',
        'Check the result in the field, not just the lab. A priority hint that saves 400 ms on a fast laptop can save well over a second on a mid-range phone on a congested network.',
      ),
      {
        type: 'image',
        url: `${IMAGES}/lcp-before-after.jpg`,
        alt: 'Two filmstrips of the same page loading; in the lower one the hero image appears 1.3 seconds earlier',
        caption:
          'Before and after on a client’s product page: LCP went from 3.9 s to 2.6 s at the 75th percentile.',
      },
    ],
  },
  {
    id: 'a004',
    slug: 'breaking-up-long-tasks-for-inp',
    title: 'Breaking up long tasks to improve INP',
    publishedAt: '2026-04-02T07:45:00.000Z',
    published: true,
    blocks: [
      paragraph(
        'When a visitor taps a button and nothing happens for half a second, the cause is almost always the same: the main thread was busy. JavaScript runs on the same thread that handles input and paints the screen, so any task that runs for a long time blocks everything else. Interaction to Next Paint makes that delay visible.',
      ),
      paragraph(
        'A ',
        bold('long task'),
        ' is any task that keeps the main thread busy for more than 50 milliseconds. The fix is rarely to make the work disappear. It is to split it into smaller pieces and give the browser a chance to respond between them.',
      ),
      heading(2, 'Yield to the main thread'),
      paragraph(
        'The modern way to yield is ',
        code('scheduler.yield()'),
        ', which pauses your function and lets the browser handle pending input before continuing. Your continuation goes to the front of the queue, so other scripts cannot jump in. Where it is not supported yet, a resolved ',
        code('setTimeout'),
        ' is a reasonable fallback.',
      ),
      codeBlock(
        `function yieldToMain() {
  if (globalThis.scheduler?.yield) return scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}

async function renderResults(items) {
  for (const [index, item] of items.entries()) {
    renderItem(item);
    // Give input a chance every 20 items instead of blocking for the whole list.
    if (index % 20 === 19) await yieldToMain();
  }
}`,
        'js',
      ),
      heading(2, 'Do the visible part first'),
      paragraph(
        'Most click handlers do two kinds of work: the part the visitor sees (open the menu, show the spinner) and the part they do not (send analytics, update a cache, sync state to local storage). Do the visible work, yield, then do the rest. The next paint happens after the first part, and that is what INP measures.',
      ),
      {
        type: 'quote',
        content: toRuns([
          'Users do not feel how long your handler runs. They feel how long it takes until something on the screen changes.',
        ]),
      },
      callout(
        'warning',
        'Wrapping work in ',
        code('requestAnimationFrame'),
        ' does not break up a long task; it only moves it to just before the next frame, which can make that frame later still.',
      ),
      heading(3, 'Finding the long tasks'),
      paragraph(
        'Record an interaction in the DevTools Performance panel and look for tasks with a red corner. Field data is better still: the attribution build of the web-vitals library tells you which element was interacted with and which script was running. We walk through that setup in ',
        link('Measuring real users with web-vitals', '/blog/measuring-real-users-with-web-vitals'),
        '.',
      ),
    ],
  },
  {
    id: 'a005',
    slug: 'layout-shift-reserve-the-space',
    title: 'Layout shift: reserve the space before you fill it',
    publishedAt: '2026-04-28T13:20:00.000Z',
    published: true,
    blocks: [
      paragraph(
        'Cumulative Layout Shift is the only Core Web Vital where the fix is more about discipline than technology. Almost every layout shift we see comes from content that arrives after the first render without the page having kept a place for it: images without dimensions, adverts, cookie banners, embeds and web fonts.',
      ),
      heading(2, 'Images and video: give them dimensions'),
      paragraph(
        'Set ',
        code('width'),
        ' and ',
        code('height'),
        ' attributes on every image and video. Browsers use them to compute an aspect ratio before the file arrives, so the box has the right height from the start even when CSS makes the image fluid.',
      ),
      codeBlock(
        `img,
video {
  max-width: 100%;
  height: auto; /* keeps the aspect ratio from the width and height attributes */
}

.embed {
  aspect-ratio: 16 / 9;
  width: 100%;
}`,
        'css',
      ),
      {
        type: 'image',
        url: `${IMAGES}/cls-placeholder-box.jpg`,
        alt: 'A product card whose image area is an empty grey box of the final size while the photo loads',
        width: 1200,
        height: 800,
      },
      heading(2, 'Adverts and embeds: reserve a slot'),
      paragraph(
        'Ad slots are the hardest case, because the size is not known until the auction finishes. Give the slot a ',
        code('min-height'),
        ' equal to the most common creative size. If the slot sometimes stays empty, collapse it only when it is below the viewport, or show a house advert instead.',
      ),
      heading(2, 'Banners: overlay, do not push'),
      paragraph(
        'Cookie banners and promotion bars that appear at the top of the page push everything else down. Position them ',
        italic('over'),
        ' the content, fixed to the bottom of the viewport, and the shift disappears entirely.',
      ),
      callout(
        'tip',
        'Layout shifts within 500 ms of a click or key press do not count towards CLS. An accordion that opens when tapped is fine; one that opens by itself after two seconds is not.',
      ),
      {
        type: 'video',
        provider: 'youtube',
        videoId: 'R7mXq2Lp9Tw',
        url: 'https://www.youtube.com/watch?v=R7mXq2Lp9Tw',
        title: 'Hunting layout shifts with the DevTools Layout Shift regions overlay (6 minutes)',
      },
    ],
  },
  {
    id: 'a006',
    slug: 'cache-control-headers-that-work',
    title: 'Cache-Control headers that actually work',
    publishedAt: '2026-05-21T09:00:00.000Z',
    published: true,
    seo: {
      title: 'Cache-Control headers that actually work',
      description:
        'Three caching policies cover almost every site: immutable for fingerprinted assets, revalidation for HTML, and a short shared cache for APIs.',
      ogImage: `${IMAGES}/og-cache-control.jpg`,
    },
    blocks: [
      paragraph(
        'The fastest request is the one the browser never makes. Yet on most sites we audit, returning visitors download the same stylesheet, logo and JavaScript bundle again on every visit, because the caching headers were copied from a blog post ten years ago and never looked at since.',
      ),
      paragraph(
        'Good news: three policies cover almost every site. Pick the right one for each kind of response and you are done.',
      ),
      heading(2, 'The three policies'),
      {
        type: 'table',
        headers: ['Response', 'Cache-Control', 'Why'],
        rows: [
          [
            'Fingerprinted assets (app.3f9c1d.js)',
            'public, max-age=31536000, immutable',
            'The URL changes when the content does',
          ],
          ['HTML documents', 'no-cache', 'Always revalidate, so a deploy is seen at once'],
          [
            'Public API responses',
            'public, max-age=60, stale-while-revalidate=300',
            'Fresh enough, and never blocks on the origin',
          ],
        ],
      },
      paragraph(
        'Note that ',
        code('no-cache'),
        ' does not mean “do not cache”. It means “store it, but check with the server before using it”. With an ',
        code('ETag'),
        ' that check is a tiny request answered with ',
        code('304 Not Modified'),
        '.',
      ),
      heading(3, 'What a good asset response looks like'),
      codeBlock(`HTTP/2 200
content-type: text/javascript; charset=utf-8
content-encoding: br
cache-control: public, max-age=31536000, immutable
etag: "3f9c1d"`),
      callout(
        'warning',
        'Do not send ',
        code('no-store'),
        ' on HTML unless the page really contains private data. Besides disabling the HTTP cache, it has historically kept pages out of the browser’s back/forward cache, which makes the back button slow. See ',
        link('our bfcache checklist', '/blog/back-forward-cache-checklist'),
        '.',
      ),
      heading(2, 'Checking your headers'),
      paragraph(
        'Open the Network panel, reload twice, and look at the Size column. Fingerprinted assets should say ',
        italic('(memory cache)'),
        ' or ',
        italic('(disk cache)'),
        ' on the second load. If they show a byte count, the browser went back to the network and the policy is not doing its job.',
      ),
    ],
  },
  {
    id: 'a007',
    slug: 'web-fonts-without-the-wait',
    title: 'Web fonts without the wait',
    publishedAt: '2026-06-16T11:10:00.000Z',
    published: true,
    blocks: [
      paragraph(
        'Custom fonts are part of a brand, and we would never ask a client to drop them. But fonts are also a common cause of invisible text, late headlines and layout shift. A few small changes keep the typography and lose the waiting.',
      ),
      heading(2, 'Five habits for faster fonts'),
      list(false, [
        [
          'Serve ',
          bold('WOFF2'),
          ' only. Every browser you support reads it, and it is the smallest format.',
        ],
        [
          'Subset the files to the characters you use, split by ',
          code('unicode-range'),
          ' if you need several scripts.',
        ],
        ['Use ', code('font-display: swap'), ' for body text so words appear at once in a fallback font.'],
        'Self-host instead of loading from a third-party origin, which costs an extra connection.',
        'Preload only the one or two files needed above the fold, not the whole family.',
      ]),
      heading(2, 'Preloading a font correctly'),
      paragraph(
        'Fonts are always fetched in CORS mode, even from your own origin. A preload without the ',
        code('crossorigin'),
        ' attribute does not match the real request, so the browser downloads the file twice.',
      ),
      codeBlock(
        '<link rel="preload" href="/fonts/inter-latin-600.woff2" as="font" type="font/woff2" crossorigin>',
        'html',
      ),
      heading(2, 'Taming the swap'),
      paragraph(
        'With ',
        code('swap'),
        ', text first renders in the fallback font and then jumps when the web font arrives. You can make that jump almost invisible by adjusting the fallback’s metrics to match:',
      ),
      codeBlock(
        `@font-face {
  font-family: "Inter Fallback";
  src: local("Arial");
  size-adjust: 107%;
  ascent-override: 90%;
  descent-override: 22%;
}

body {
  font-family: "Inter", "Inter Fallback", sans-serif;
}`,
        'css',
      ),
      callout(
        'tip',
        'Tools such as Fontaine and the Next.js font loader compute these override values for you. Measure the result with the Layout Shift regions overlay rather than trusting the numbers blindly.',
      ),
    ],
  },
  {
    id: 'a008',
    slug: 'auditing-third-party-scripts',
    title: 'Auditing third-party scripts without starting a war',
    publishedAt: '2026-07-09T08:05:00.000Z',
    published: true,
    related: ['breaking-up-long-tasks-for-inp', 'case-study-bookshop-checkout'],
    blocks: [
      paragraph(
        'On the median site we audit, third-party scripts account for more main-thread time than the site’s own code. Chat widgets, A/B testing tools, tag managers, review badges, heatmaps: each was added by someone with a good reason, and nobody is in charge of the total.',
      ),
      paragraph(
        'Removing them is rarely a technical problem. It is a conversation with marketing, sales and support, and it goes much better with numbers on the table.',
      ),
      heading(2, 'Our audit, step by step'),
      list(true, [
        [
          'List every third-party origin the page contacts. The DevTools Network panel can group requests by ',
          italic('domain'),
          '.',
        ],
        'For each one, find an owner: the person or team who asked for it and who looks at its output.',
        'Measure its cost: bytes, main-thread time, and the effect on LCP and INP with the script blocked.',
        'Agree on a decision per script: keep, load later, replace with a lighter option, or remove.',
      ]),
      heading(2, 'What we usually find'),
      {
        type: 'table',
        headers: ['Script', 'Main-thread time (mobile)', 'Decision'],
        rows: [
          ['Tag manager with 31 tags', '1,240 ms', 'Remove 19 unused tags'],
          ['Live chat widget', '610 ms', 'Load on first click on the chat button'],
          ['A/B testing snippet', '380 ms', 'Keep, but only on pages with a running test'],
          ['Embedded video player', '520 ms', 'Replace with a thumbnail facade'],
        ],
      },
      {
        type: 'quote',
        content: toRuns([
          'We had forgotten that two of those tools were still running. One of them belonged to an agency we stopped working with in 2023.',
        ]),
        attribution: 'Head of e-commerce at a UK homeware retailer',
      },
      heading(3, 'Load it when it is needed'),
      paragraph(
        'A chat widget does not need to load before anyone asks for help. Render a lightweight button, and load the real widget the first time somebody clicks it. The same facade pattern works for video embeds and maps.',
      ),
      {
        type: 'cta',
        heading: 'Want us to run this audit on your site?',
        buttonLabel: 'Book a third-party audit',
        buttonHref: '/services/third-party-audit',
      },
    ],
  },
  {
    id: 'a009',
    slug: 'case-study-bookshop-checkout',
    title: 'Case study: a faster checkout for an independent bookshop',
    publishedAt: '2026-08-04T12:30:00.000Z',
    published: true,
    related: [
      'auditing-third-party-scripts',
      'breaking-up-long-tasks-for-inp',
      'cache-control-headers-that-work',
    ],
    seo: {
      title: 'Case study: a 41% faster checkout for an independent bookshop',
      description:
        'How a small online bookshop cut checkout INP from 480 ms to 140 ms and saw conversion rise, in six weeks and without a rewrite.',
      ogImage: `${IMAGES}/og-bookshop-case-study.jpg`,
    },
    blocks: [
      paragraph(
        'In the spring, an independent bookshop with a busy online store asked us why so many customers abandoned their baskets on the payment step. Their analytics showed a drop-off of almost a third between “Review order” and “Payment complete”, far higher than the industry figures they had seen.',
      ),
      {
        type: 'image',
        url: `${IMAGES}/bookshop-checkout.jpg`,
        alt: 'A phone showing a checkout page with a list of three books and a Pay now button',
        caption: 'The checkout page on a mid-range Android phone, where most of the shop’s customers buy.',
      },
      heading(2, 'What we found'),
      paragraph(
        'Field data told the story within a day. The checkout’s INP at the 75th percentile was ',
        bold('480 ms'),
        ' on mobile. Tapping “Pay now” ran address validation, a basket recalculation and four analytics tags in one synchronous handler before the button even showed its loading state. On slower phones customers tapped again, and some were charged twice.',
      ),
      heading(2, 'What we changed'),
      list(false, [
        'The button now shows its loading state first, then yields before any other work.',
        'The basket recalculation moved to the server, where it already ran a second time anyway.',
        'Two of the four analytics tags were duplicates; the other two now send after the payment request.',
        'Checkout scripts are fingerprinted and cached for a year instead of revalidated on every step.',
      ]),
      heading(2, 'Results'),
      {
        type: 'table',
        headers: ['Measure (mobile, p75)', 'Before', 'After'],
        rows: [
          ['INP on checkout', '480 ms', '140 ms'],
          ['LCP on checkout', '3.1 s', '1.8 s'],
          ['Checkout completion', '68%', '79%'],
          ['Duplicate payments per month', '23', '0'],
        ],
      },
      {
        type: 'quote',
        content: toRuns([
          'The double charges were what worried us most. We assumed it was the payment provider. It turned out to be our own button.',
        ]),
        attribution: 'Operations lead, independent bookshop',
      },
      paragraph(
        'We presented the project at a local meetup in September. The recording covers the debugging session in more detail, including the traces we used to convince the team.',
      ),
      {
        type: 'video',
        provider: 'youtube',
        videoId: 'hJ4c8ZkN1vE',
        url: 'https://www.youtube.com/watch?v=hJ4c8ZkN1vE',
        title: 'Why customers tapped Pay twice: a checkout INP case study (meetup talk, 24 minutes)',
      },
    ],
  },
  {
    id: 'a010',
    slug: 'measuring-real-users-with-web-vitals',
    title: 'Measuring real users with the web-vitals library',
    publishedAt: '2026-09-01T09:40:00.000Z',
    published: true,
    blocks: [
      paragraph(
        'Lab tests tell you how a page performs on one machine in one place. Real-user monitoring (RUM) tells you how it performs for the people who actually visit. You do not need an expensive product to start: the open-source ',
        link('web-vitals library', 'https://github.com/GoogleChrome/web-vitals', 'noopener nofollow'),
        ' and a small endpoint are enough.',
      ),
      heading(2, 'Sending the metrics'),
      paragraph(
        'Each ',
        code('on…'),
        ' function reports its metric when the value is final, often when the page is hidden. Use ',
        code('navigator.sendBeacon'),
        ' so the request survives the page being closed.',
      ),
      codeBlock(
        `import { onCLS, onINP, onLCP } from 'web-vitals';

function sendToAnalytics(metric) {
  const body = JSON.stringify({
    name: metric.name,
    value: metric.value,
    rating: metric.rating,
    id: metric.id,
    page: location.pathname,
  });
  if (!navigator.sendBeacon('/rum', body)) {
    fetch('/rum', { body, method: 'POST', keepalive: true });
  }
}

onCLS(sendToAnalytics);
onINP(sendToAnalytics);
onLCP(sendToAnalytics);`,
        'js',
      ),
      heading(2, 'Knowing what to fix'),
      paragraph(
        'A number alone says that something is slow, not what. Import from ',
        code('web-vitals/attribution'),
        ' instead and each metric arrives with an ',
        code('attribution'),
        ' object: the LCP element and its load breakdown, the element behind a slow interaction, the largest layout shift source.',
      ),
      callout(
        'info',
        'Report percentiles, not averages. A handful of very slow visits can move an average a long way while the 75th percentile, which is what Google uses, barely changes.',
      ),
      {
        type: 'faq',
        items: [
          {
            question: 'Will the library slow my page down?',
            answer: toRuns([
              'No. The standard build is about 2 KB compressed and does its work with browser performance observers. Load it with ',
              code('type="module"'),
              ' after your main content.',
            ]),
          },
          {
            question: 'How much traffic do we need?',
            answer: toRuns([
              'A few hundred visits per template per day gives stable percentiles within a week. Below that, look at weekly trends rather than daily ones.',
            ]),
          },
          {
            question: 'Do we need consent to collect these metrics?',
            answer: toRuns([
              'The metrics themselves contain no personal data, but the rules where you operate may still apply to the request. Check with whoever handles privacy for you, and never attach user identifiers.',
            ]),
          },
        ],
      },
    ],
  },
  {
    id: 'a011',
    slug: 'performance-budgets-in-ci',
    title: 'Performance budgets in CI with Lighthouse CI',
    publishedAt: '2026-10-06T10:25:00.000Z',
    published: true,
    related: ['measuring-real-users-with-web-vitals', 'core-web-vitals-in-plain-language'],
    seo: {
      description:
        'Set up Lighthouse CI on GitHub Actions so a pull request that makes the site slower fails before it is merged.',
      jsonLd: {
        '@context': 'https://schema.org',
        '@type': 'HowTo',
        name: 'Add a performance budget to a GitHub Actions pipeline',
        totalTime: 'PT30M',
        step: [
          {
            '@type': 'HowToStep',
            name: 'Write the budget',
            text: 'Create lighthouserc.json with assertions for LCP, CLS, Total Blocking Time and script size.',
          },
          {
            '@type': 'HowToStep',
            name: 'Add the workflow',
            text: 'Add a GitHub Actions workflow that builds the site and runs lhci autorun on every pull request.',
          },
          {
            '@type': 'HowToStep',
            name: 'Tighten over time',
            text: 'Start at today’s values and lower the limits as improvements land.',
          },
        ],
      },
    },
    blocks: [
      paragraph(
        'Every site we have made faster has, at some point, become slower again. Not through one bad decision but through fifty small ones: a new dependency here, a bigger image there. A performance budget turns that slow drift into a failing check on the pull request that caused it.',
      ),
      heading(2, 'Step 1: write the budget'),
      paragraph(
        'Lighthouse CI reads its configuration from ',
        code('lighthouserc.json'),
        '. Start with the values your site achieves today, so the check passes on the first run, and tighten them as improvements land.',
      ),
      codeBlock(
        `{
  "ci": {
    "collect": {
      "startServerCommand": "npm run preview",
      "url": ["http://localhost:4173/", "http://localhost:4173/products/example"],
      "numberOfRuns": 3
    },
    "assert": {
      "assertions": {
        "largest-contentful-paint": ["error", { "maxNumericValue": 2500 }],
        "cumulative-layout-shift": ["error", { "maxNumericValue": 0.1 }],
        "total-blocking-time": ["warn", { "maxNumericValue": 200 }],
        "resource-summary:script:size": ["error", { "maxNumericValue": 170000 }]
      }
    }
  }
}`,
        'json',
      ),
      heading(2, 'Step 2: run it on every pull request'),
      codeBlock(
        `name: Performance budget
on: pull_request

jobs:
  lighthouse:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 24
      - run: npm ci
      - run: npm run build
      - run: npx @lhci/cli autorun`,
        'yaml',
      ),
      heading(3, 'Step 3: keep the signal clean'),
      list(true, [
        ['Run each URL ', bold('three times'), ' and let Lighthouse CI take the median.'],
        'Keep timing budgets as warnings at first; size budgets are stable enough to fail on straight away.',
        'Pin the runner image so a CI upgrade does not look like a regression.',
      ]),
      callout(
        'warning',
        'Lab timings on shared CI machines vary by 10–20% between runs. Budgets catch large regressions reliably; they are not a substitute for ',
        link('real-user monitoring', '/blog/measuring-real-users-with-web-vitals'),
        '.',
      ),
    ],
  },
  {
    id: 'a012',
    slug: 'back-forward-cache-checklist',
    title: 'The back/forward cache: a checklist for instant back buttons',
    publishedAt: '2026-11-03T08:50:00.000Z',
    published: true,
    blocks: [
      paragraph(
        'When a visitor presses the back button, a browser can restore the previous page ',
        italic('instantly'),
        ', with its scroll position and state intact, from the back/forward cache (bfcache). No network, no rendering, no JavaScript start-up. But only if nothing on the page prevents it, and on many sites something does.',
      ),
      paragraph(
        'Back and forward navigations are a surprisingly large share of all page views, often more than one in ten on mobile. Making them eligible for the bfcache is one of the cheapest wins in web performance.',
      ),
      heading(2, 'The checklist', 'checklist'),
      list(false, [
        [
          'Remove every ',
          code('unload'),
          ' event listener, including those added by third-party scripts. Use ',
          code('pagehide'),
          ' instead.',
        ],
        ['Avoid ', code('Cache-Control: no-store'), ' on pages that do not contain private data.'],
        'Close open WebSocket connections and IndexedDB transactions when the page is hidden.',
        ['Avoid opening windows with a live ', code('window.opener'), ' reference when you do not need it.'],
      ]),
      heading(2, 'Testing a page'),
      paragraph(
        'Chrome DevTools has a dedicated test: open the Application panel, choose Back/forward cache, and run the test. It navigates away and back, then lists every reason the page was not restored.',
      ),
      codeBlock(`DevTools → Application → Background services → Back/forward cache → Test back/forward cache

Result: Not served from back/forward cache
  • The page has an unload handler in the main frame.
  • Pages with cache-control:no-store header cannot enter back/forward cache.`),
      heading(3, 'Restoring state after a restore'),
      paragraph(
        'A page restored from the bfcache does not reload, so code that ran on load does not run again. Listen for ',
        code('pageshow'),
        ' and check ',
        code('event.persisted'),
        ' to refresh anything time-sensitive, such as a basket count or a login state.',
      ),
      callout(
        'info',
        'In the field, the ',
        code('notRestoredReasons'),
        ' property of the navigation timing entry reports why a back navigation was not served from the cache, so you can find blockers that only real users hit.',
      ),
      {
        type: 'faq',
        items: [
          {
            question: 'Does the bfcache affect my analytics?',
            answer: toRuns([
              'A restored page does not fire a new load event, so some analytics tools undercount those views. Most current tools listen for ',
              code('pageshow'),
              ' and count them correctly.',
            ]),
          },
          {
            question: 'Is it safe for pages with personal data?',
            answer: toRuns([
              'Browsers are cautious here, and ',
              code('no-store'),
              ' remains the right choice for genuinely private pages such as account settings. The ',
              link('checklist above', '#checklist'),
              ' is for the rest of the site.',
            ]),
          },
        ],
      },
      {
        type: 'cta',
        heading: 'Not sure why your back button is slow?',
        body: 'We will test your five most visited templates for bfcache eligibility and send you the list of blockers with a fix for each.',
        buttonLabel: 'Request a bfcache check',
        buttonHref: '/contact?topic=bfcache',
      },
    ],
  },
];
