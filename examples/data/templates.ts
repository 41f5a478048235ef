/** Category-independent templates: generic titles and sentences, opening and closing lines. */

/** Title templates any category can use. */
export const GENERIC_TITLES = [
  'Notes on {Topic}',
  '{Topic}: A Practical Introduction',
  'Why {Topic} Matters More Than You Think',
  'How We Improved {Metric} Through {Topic}',
  'Five Mistakes We Made with {Topic}',
  'Rethinking {Topic} in {year}',
];

/** Sentence templates any category can use. */
export const GENERIC_SENTENCES = [
  'In {year}, {team} began a review of {topic} after a string of small but painful incidents.',
  'The first step was simply measuring {metric}, which nobody had tracked consistently.',
  'The biggest improvement came from {practice}.',
  'We also started {practice}, which took a few weeks to become habit.',
  'Looking back, {problem} should have been caught much earlier.',
  'The change was not free: it took {team} about {weeks} weeks and required several rounds of review.',
  'Within {months} months, {metric} had improved by roughly {percent}%.',
  'At {company}, the same approach worked with only minor adjustments.',
  'None of this is novel, but writing it down helped new team members get up to speed quickly.',
  'The open question is how well this scales once the number of services doubles again.',
  "{Topic} is rarely anyone's full-time job, which is exactly why it tends to degrade.",
  'We kept a short decision log so that future readers can see why each trade-off was made.',
];

/** First sentences: each names the document's topic, so the subject is clear and searchable. */
export const INTROS = [
  'This article looks at {topic} from the point of view of {team}.',
  'For most of the past year, our planning meetings kept returning to {topic}.',
  '{Topic} sounds like a solved problem until you have to do it yourself.',
  'This is a write-up of how {team} approached {topic}, including the parts that did not work.',
  'We get asked about {topic} often enough that it deserves a proper write-up.',
  'Here is what we learned about {topic} after running it in production for a while.',
];

/** Last paragraphs, added to some documents. */
export const CLOSINGS = [
  'The lesson we keep relearning is that boring, well-understood tools beat clever ones.',
  'We will revisit these numbers in six months and publish what changed.',
  'If you are starting out, begin with measurement; everything else follows from it.',
  'Feedback from readers is welcome, especially from teams that chose differently.',
  'The remaining work is tracked openly and anyone is welcome to pick it up.',
];
