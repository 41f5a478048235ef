/** Category vocabularies for the business side: finance and product. */
import type { Vocabulary } from './vocabulary.js';

/** The finance category's words and templates. */
export const FINANCE: Vocabulary = {
  topics: [
    'quarterly results',
    'revenue recognition',
    'cash flow forecasting',
    'budget planning',
    'cloud cost allocation',
    'unit economics',
    'pricing changes',
    'audit preparation',
    'subscription churn',
    'operating margin',
  ],
  systems: [
    'the general ledger',
    'the billing platform',
    'the planning model',
    'the data warehouse',
    'the ERP system',
  ],
  metrics: [
    'gross margin',
    'operating margin',
    'annual recurring revenue',
    'customer acquisition cost',
    'free cash flow',
  ],
  problems: [
    'invoices recorded in the wrong period',
    'cloud spend that no team felt responsible for',
    'discounts approved outside the pricing policy',
    "forecasts built on last year's assumptions",
    'manual spreadsheets reconciled by hand every month',
  ],
  practices: [
    'closing the books within five working days',
    'tagging every cloud resource with a cost owner',
    'reviewing the forecast monthly against actuals',
    'separating one-off revenue from recurring revenue',
    'publishing unit economics alongside product metrics',
  ],
  titles: [
    '{Topic}: Q{quarter} {year} Review',
    'Understanding {Topic}',
    '{Topic} and What It Means for Planning',
    'How {company} Approaches {Topic}',
  ],
  sentences: [
    'Revenue for Q{quarter} {change} by {percent}% compared with the same quarter last year.',
    '{Metric} {change} to {percent}% as infrastructure costs were renegotiated.',
    'The quarterly results were driven mostly by expansion revenue from existing customers.',
    'Finance worked with {team} to trace {problem} back to their source.',
    'Cloud costs are now allocated to the products that incur them, which changed several pricing conversations.',
    'The forecast for next year assumes modest growth and keeps hiring flat in the first half.',
    'Operating expenses grew more slowly than revenue for the fourth consecutive quarter.',
    'Churn among small customers remains the largest risk to annual recurring revenue.',
  ],
};

/** The product category's words and templates. */
export const PRODUCT: Vocabulary = {
  topics: [
    'onboarding flows',
    'pricing pages',
    'feature flags',
    'user research',
    'roadmap planning',
    'developer experience',
    'accessibility',
    'notification digests',
    'search relevance',
    'self-serve analytics',
  ],
  systems: [
    'the mobile app',
    'the admin console',
    'the public API',
    'the command-line tool',
    'the web dashboard',
  ],
  metrics: [
    'activation rate',
    'weekly active users',
    'time to first value',
    'support ticket volume',
    'net promoter score',
  ],
  problems: [
    'a signup form that asked for too much too early',
    'settings hidden three menus deep',
    'email notifications that users could not tune',
    'documentation that lagged behind the product',
    'features built for one large customer',
  ],
  practices: [
    'talking to five customers before writing a spec',
    'shipping behind feature flags and measuring before announcing',
    'letting users choose a daily or weekly digest',
    'writing the documentation before the launch post',
    'treating error messages as part of the interface',
  ],
  titles: [
    'Rethinking {Topic} for {company}',
    'What Users Told Us About {Topic}',
    '{Topic}: A Product Retrospective',
    'Small Changes to {Topic}, Big Results',
  ],
  sentences: [
    'Interviews revealed {problem}, which explained the drop in {metric}.',
    'The redesign of {system} focused on the first ten minutes of use.',
    'Asking for an email address only when it was needed increased completion noticeably.',
    'A weekly digest replaced a stream of individual notifications and unsubscribes fell sharply.',
    'Clear error messages that suggest the next step reduced support tickets more than any new feature.',
    'The roadmap now reserves a fifth of each quarter for fixing what users complain about most.',
  ],
};
