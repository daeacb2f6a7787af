/**
 * The words the demo workspace is made of: people, places, teams, projects, categories and the
 * phrases its tasks, activities and day comments are built from. All names are invented.
 */

export const FIRST_NAMES = [
  'Amara',
  'Bruno',
  'Chiara',
  'Dmitri',
  'Elif',
  'Farid',
  'Greta',
  'Hiro',
  'Ines',
  'Jonas',
  'Kemi',
  'Lukas',
  'Mei',
  'Nadia',
  'Omar',
  'Priya',
  'Quentin',
  'Rosa',
  'Sven',
  'Tariq',
  'Uma',
  'Viktor',
  'Wanda',
  'Xavier',
  'Yara',
  'Zoltan',
  'Aiko',
  'Bashir',
  'Camila',
  'Diego',
  'Esther',
  'Felix',
  'Hana',
  'Ivo',
  'Jade',
  'Kofi',
  'Lena',
  'Mateo',
  'Noor',
  'Oskar',
] as const;

export const LAST_NAMES = [
  'Okafor',
  'Lindqvist',
  'Moreau',
  'Petrov',
  'Yilmaz',
  'Haddad',
  'Brandt',
  'Tanaka',
  'Ferreira',
  'Novak',
  'Adeyemi',
  'Keller',
  'Chen',
  'Rahman',
  'Saleh',
  'Iyer',
  'Dubois',
  'Alvarez',
  'Berg',
  'Aziz',
  'Costa',
  'Horvath',
  'Kowalski',
  'Laurent',
  'Mendes',
  'Nagy',
  'Sato',
  'Qureshi',
  'Rossi',
  'Schmid',
] as const;

/** Where the demo's people work: zones east and west of UTC; the US offices start weeks on Sunday. */
export const PLACES = [
  { timezone: 'Europe/Berlin', weekStart: 'monday' },
  { timezone: 'America/New_York', weekStart: 'sunday' },
  { timezone: 'Asia/Tokyo', weekStart: 'monday' },
  { timezone: 'America/Los_Angeles', weekStart: 'sunday' },
  { timezone: 'Europe/London', weekStart: 'monday' },
  { timezone: 'Asia/Kolkata', weekStart: 'monday' },
  { timezone: 'Australia/Sydney', weekStart: 'monday' },
  { timezone: 'America/Sao_Paulo', weekStart: 'monday' },
  { timezone: 'UTC', weekStart: 'monday' },
  { timezone: 'Pacific/Auckland', weekStart: 'monday' },
] as const;

export type CategoryKey = 'focus' | 'meetings' | 'communication' | 'planning' | 'review' | 'learning';

export const CATEGORIES: readonly { key: CategoryKey; id: string; name: string; emoji: string }[] = [
  { key: 'focus', id: 'cat_focus', name: 'Focus work', emoji: '🎯' },
  { key: 'meetings', id: 'cat_meetings', name: 'Meetings', emoji: '🗣️' },
  { key: 'communication', id: 'cat_communication', name: 'Communication', emoji: '✉️' },
  { key: 'planning', id: 'cat_planning', name: 'Planning', emoji: '🗓️' },
  { key: 'review', id: 'cat_review', name: 'Code review', emoji: '🔍' },
  { key: 'learning', id: 'cat_learning', name: 'Learning', emoji: '📚' },
];

export const TEAM_NAMES = [
  'Platform',
  'Mobile',
  'Growth',
  'Data',
  'Design',
  'Support',
  'Infrastructure',
  'Payments',
  'Security',
  'Integrations',
  'Search',
  'Onboarding',
  'Billing',
  'Analytics',
  'Reliability',
  'Localization',
  'Developer Experience',
  'Partnerships',
  'Marketplace',
  'Notifications',
] as const;

export const TEAM_PROJECTS = [
  { name: 'Public API', description: 'The HTTP API our customers integrate with: endpoints, limits and docs.' },
  { name: 'Billing revamp', description: 'Move invoicing to usage-based plans without surprising existing customers.' },
  {
    name: 'Onboarding flow',
    description: 'Get a new workspace from sign-up to its first report in under ten minutes.',
  },
  { name: 'Search relevance', description: 'Better ranking for task and activity search, measured on real queries.' },
  { name: 'Mobile app 3.0', description: 'Offline-first rewrite of the mobile app.' },
  { name: 'Data warehouse', description: 'Nightly exports into the warehouse and the dashboards built on them.' },
  { name: 'Design system', description: 'Shared components, tokens and accessibility checks.' },
  { name: 'Incident tooling', description: 'Runbooks, paging and post-incident reviews.' },
  { name: 'Customer portal', description: 'Self-service account management for customers.' },
  { name: 'Reporting dashboards', description: 'Weekly and monthly dashboards for team leads.' },
  { name: 'Localization', description: 'Translate the product into German, Japanese and Portuguese.' },
  { name: 'Performance budget', description: 'Keep page loads under one second on a mid-range phone.' },
] as const;

export const CONFIDENTIAL_PROJECTS = [
  { name: 'Project Heron', description: 'Due diligence for a possible acquisition. Need-to-know only.' },
  { name: 'Pricing 2027', description: 'New price list, not to be discussed outside the team.' },
] as const;

export const PERSONAL_PROJECTS = [
  { name: 'Admin and expenses', description: 'Time sheets, expense reports, travel bookings.' },
  { name: 'Learning TypeScript', description: 'Working through a course, one chapter a week.' },
  { name: 'Conference talk', description: 'Preparing a talk for the autumn meet-up.' },
  { name: 'Side project', description: null },
  { name: 'Mentoring', description: 'Weekly sessions with a junior colleague.' },
] as const;

export const FEATURES = [
  'CSV export',
  'webhook retries',
  'SSO login',
  'dark mode',
  'rate limit headers',
  'weekly digest e-mail',
  'project archiving',
  'team invitations',
  'audit log',
  'bulk edit',
  'timezone settings',
  'API key scopes',
  'Slack notifications',
  'invoice PDFs',
  'usage dashboard',
  'password reset',
  'search filters',
  'offline sync',
] as const;

export const BUGS = [
  'timezone rounding in reports',
  'flaky login test',
  'memory leak in the export worker',
  'duplicate rows after import',
  'slow project list',
  'broken link in the welcome e-mail',
  'wrong week start in summaries',
  'crash on empty search',
  'stale cache after rename',
] as const;

export const COMPONENTS = [
  'billing service',
  'report builder',
  'search index',
  'notification queue',
  'auth middleware',
  'import pipeline',
  'settings page',
  'mobile sync',
  'summary renderer',
] as const;

export const CUSTOMERS = ['Northwind', 'Globex', 'Initech', 'Umbrella Health', 'Acme Logistics', 'Hooli'] as const;

export const MEETINGS = [
  'Daily stand-up',
  'Sprint planning',
  'Sprint review',
  'Retrospective',
  'Architecture review',
  'Product sync',
  'All-hands',
] as const;

export const CHANNELS = ['general', 'team', 'incidents', 'releases', 'random', 'help'] as const;

export const FILES = [
  'src/report.ts',
  'src/search/rank.ts',
  'README.md',
  'api/openapi.yaml',
  'app/settings.tsx',
  'worker/export.go',
  'db/migrations.sql',
  'test/billing.test.ts',
] as const;

export const DAY_COMMENTS = [
  'Good focus day, finally finished the {feature} draft.',
  'Lots of interruptions today, little deep work.',
  'Pairing session went well; we found the cause of the {bug}.',
  'Half day: dentist in the afternoon.',
  'Team offsite planning, mostly meetings.',
  'On support rotation today.',
  'Shipped {feature} to production 🎉',
  'Felt slow today, need to look at my calendar.',
  'Interviewed two candidates.',
  'Worked from the train in the morning.',
] as const;

export const DAY_OFF_COMMENTS = ['Vacation 🌴', 'Out sick.', 'Public holiday.', 'Moving flat.'] as const;
