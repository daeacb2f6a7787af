/**
 * The fixed part of the demo workspace: people, teams, portfolios, categories, projects and API
 * keys. It grows with the number of users only, so it is built in memory; the day-by-day records
 * are generated from it in ./days.ts.
 */
import { createHash } from 'node:crypto';
import type {
  ApiKeyRecord,
  CategoryRecord,
  PortfolioRecord,
  ProjectRecord,
  TeamRecord,
  UserRecord,
} from '../dataset/records.ts';
import { addDays, localDateOf, firstInstantOfLocalDay } from '../lib/time.ts';
import { SCOPES } from '../services/scopes.ts';
import { PROJECT_COLORS } from '../services/projects/fields.ts';
import {
  CATEGORIES,
  CONFIDENTIAL_PROJECTS,
  FIRST_NAMES,
  LAST_NAMES,
  PERSONAL_PROJECTS,
  PLACES,
  TEAM_NAMES,
  TEAM_PROJECTS,
} from './catalog.ts';
import { createRandom } from './random.ts';

export interface DemoOptions {
  users: number;
  days: number;
  seed: string;
  /** The clock: each person's days end on their local yesterday. */
  now: number;
  /**
   * Mixed into the API keys. Without it the keys follow from the seed alone (`daybook demo
   * --keys-from-seed`, tests); `daybook demo` and a server seeding itself pass a random salt so
   * nobody can derive their keys.
   */
  keySalt?: string;
}

/** A project a person may log time to, and until which local date (archived projects end early). */
export interface WorkProject {
  id: string;
  name: string;
  weight: number;
  until: string | null;
}

export interface DemoPerson {
  index: number;
  id: string;
  firstName: string;
  timezone: string;
  /** Local dates of the person's first and last generated day. */
  firstDay: string;
  lastDay: string;
  dailyTargetMinutes: number;
  /** Usual start of the working day, in minutes after local midnight. */
  startMinute: number;
  workProjects: WorkProject[];
  /** The first is the admin project everyone has; the others are side projects. */
  personalProjects: WorkProject[];
  teamProjects: WorkProject[];
  /** First names of people they have 1:1s with. */
  colleagues: string[];
}

export interface DemoKey {
  userId: string;
  userName: string;
  name: string;
  key: string;
  scopes: string[];
  revoked: boolean;
}

export interface DemoWorkspace {
  users: UserRecord[];
  teams: TeamRecord[];
  portfolios: PortfolioRecord[];
  categories: CategoryRecord[];
  projects: ProjectRecord[];
  apiKeys: ApiKeyRecord[];
  people: DemoPerson[];
  keys: DemoKey[];
}

const iso = (ms: number) => new Date(ms).toISOString();
const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

function demoKey(options: DemoOptions, userId: string, purpose: string): string {
  const digest = createHash('sha256')
    .update(`${options.keySalt ?? 'daybook-demo'}:${options.seed}:${userId}:${purpose}`)
    .digest('hex');
  return `dbk_demo_${digest.slice(0, 40)}`;
}

interface Person {
  index: number;
  id: string;
  first: string;
  last: string;
  timezone: string;
  firstDay: string;
  lastDay: string;
}

function buildPeople(options: DemoOptions): { users: UserRecord[]; people: Person[] } {
  const users: UserRecord[] = [];
  const people: Person[] = [];
  for (let i = 0; i < options.users; i++) {
    const first = FIRST_NAMES[i % FIRST_NAMES.length]!;
    const round = Math.floor(i / FIRST_NAMES.length);
    const last = LAST_NAMES[(i + round) % LAST_NAMES.length]!;
    const handle = `${first}.${last}${round > 0 ? round + 1 : ''}`.toLowerCase();
    const place = PLACES[i % PLACES.length]!;
    const lastDay = addDays(localDateOf(options.now, place.timezone), -1);
    const firstDay = addDays(lastDay, -(options.days - 1));
    const id = `u_${handle}`;
    // Three ways a name reaches /user: the settings name, the identity provider's, or neither.
    const nameSource = i > 0 && i % 11 === 5 ? 'none' : i % 7 === 3 ? 'provider' : 'settings';
    users.push({
      id,
      email: `${handle}@example.com`,
      name: nameSource === 'settings' ? `${first} ${last}` : null,
      displayName: nameSource === 'none' ? null : `${first} ${last.charAt(0)}.`,
      handle,
      timezone: place.timezone,
      plan: i === 0 ? 'pro' : i % 9 === 4 ? 'free' : i % 3 === 1 ? 'pro' : 'core',
      dailyTargetMinutes: i % 8 === 6 ? 360 : 480,
      weekStart: place.weekStart,
      createdAt: iso(firstInstantOfLocalDay(addDays(firstDay, -60), place.timezone)),
    });
    people.push({ index: i, id, first, last, timezone: place.timezone, firstDay, lastDay });
  }
  return { users, people };
}

/** Active members of the department team of workspaces with more people than this. */
const DEPARTMENT_SIZE = 25;

/** Builds everything but the days. Same options, same workspace. */
export function buildWorkspace(options: DemoOptions): DemoWorkspace {
  const random = createRandom(`${options.seed}:workspace`);
  const { users, people } = buildPeople(options);
  const earliest = people.map((p) => p.firstDay).sort()[0] ?? '';
  const createdAt = (daysBefore: number) => iso(firstInstantOfLocalDay(addDays(earliest, -daysBefore), 'UTC'));
  let colorIndex = random.int(0, PROJECT_COLORS.length - 1);
  const nextColor = () => PROJECT_COLORS[colorIndex++ % PROJECT_COLORS.length]!;

  const teamCount = Math.max(1, Math.round(people.length / 6));
  const teams: TeamRecord[] = [];
  const portfolios: PortfolioRecord[] = [];
  const projects: ProjectRecord[] = [];
  const teamProjectsOf = new Map<string, WorkProject[]>();
  const homeTeamOf = new Map<string, string>();

  for (let t = 0; t < teamCount && people.length > 0; t++) {
    const cycle = Math.floor(t / TEAM_NAMES.length);
    const teamName = `${TEAM_NAMES[t % TEAM_NAMES.length]}${cycle > 0 ? ` ${cycle + 1}` : ''}`;
    const teamId = `team_${slug(teamName)}`;
    const home = people.filter((p) => p.index % teamCount === t);
    // Every team has someone who left it: the first member of the next team, or, when there is
    // only one team, its last member.
    const formerMember =
      teamCount > 1
        ? people.find((p) => p.index % teamCount === (t + 1) % teamCount)
        : home.length >= 3
          ? home.pop()
          : undefined;
    const active = home;
    const members: NonNullable<TeamRecord['members']> = active.map((p, position) => ({
      userId: p.id,
      status: 'active' as const,
      role: position === 0 ? ('admin' as const) : ('member' as const),
    }));
    if (formerMember) members.push({ userId: formerMember.id, status: 'inactive', role: 'member' });
    teams.push({ id: teamId, name: teamName, members });
    for (const p of active) homeTeamOf.set(p.id, teamId);

    const owner = active[0] ?? formerMember!;
    const portfolioId = `pf_${slug(teamName)}_roadmap`;
    portfolios.push({ id: portfolioId, name: `${teamName} roadmap`, ownerId: owner.id, teamId });

    const workProjects: WorkProject[] = [];
    const addProject = (project: ProjectRecord, weight: number, until: string | null = null) => {
      projects.push(project);
      workProjects.push({ id: project.id, name: project.name, weight, until });
    };
    for (let k = 0; k < 3; k++) {
      const template = TEAM_PROJECTS[(t * 3 + k) % TEAM_PROJECTS.length]!;
      const name = t < TEAM_PROJECTS.length / 3 ? template.name : `${teamName}: ${template.name}`;
      const restricted = k === 1 && active.length >= 3;
      addProject(
        {
          id: `prj_${slug(teamName)}_${slug(template.name)}`,
          name,
          description: template.description,
          color: nextColor(),
          teamId,
          portfolioId: k < 2 ? portfolioId : null,
          private: k === 2 && t % 4 === 2,
          // Only some members may log time to it; the whole team still sees it.
          contributorIds: restricted ? active.slice(0, 2).map((p) => p.id) : null,
          createdBy: owner.id,
          createdAt: createdAt(90 - t - k),
        },
        k === 0 ? 5 : 3,
      );
    }
    if (t % 5 === 0) {
      const template = CONFIDENTIAL_PROJECTS[(t / 5) % CONFIDENTIAL_PROJECTS.length]!;
      addProject(
        {
          id: `prj_${slug(teamName)}_${slug(template.name)}`,
          name: template.name,
          description: template.description,
          color: nextColor(),
          teamId,
          confidential: true,
          createdBy: owner.id,
          createdAt: createdAt(40),
        },
        1,
      );
    }
    // Archived a third of the way into the period: its time stays in the early reports.
    addProject(
      {
        id: `prj_${slug(teamName)}_legacy-migration`,
        name: `Legacy ${teamName} migration`,
        description: 'Move the old system over; archived once the cut-over was done.',
        color: nextColor(),
        teamId,
        archived: true,
        createdBy: owner.id,
        createdAt: createdAt(120),
        updatedAt: createdAt(-Math.floor(options.days / 3)),
      },
      4,
      addDays(earliest, Math.floor(options.days / 3)),
    );
    teamProjectsOf.set(teamId, workProjects);
  }

  // A department across squads, as larger workspaces have: the first DEPARTMENT_SIZE people, and
  // the next one as a former member. It owns no projects, so a team report of it shows each
  // member's time with the projects of other squads masked, the largest team report there is.
  if (people.length > DEPARTMENT_SIZE) {
    const active = people.slice(0, DEPARTMENT_SIZE);
    teams.push({
      id: 'team_engineering',
      name: 'Engineering',
      members: [
        ...active.map((p, position) => ({
          userId: p.id,
          status: 'active' as const,
          role: position === 0 ? ('admin' as const) : ('member' as const),
        })),
        { userId: people[DEPARTMENT_SIZE]!.id, status: 'inactive' as const, role: 'member' as const },
      ],
    });
  }

  const categories: CategoryRecord[] = CATEGORIES.map((c) => ({ id: c.id, name: c.name, emoji: c.emoji }));

  const demoPeople: DemoPerson[] = [];
  const apiKeys: ApiKeyRecord[] = [];
  const keys: DemoKey[] = [];
  for (const person of people) {
    const user = users[person.index]!;
    const personal: WorkProject[] = [];
    const personalPortfolio = person.index % 4 === 0 ? `pf_${slug(person.first)}_${person.index}_personal` : null;
    if (personalPortfolio) {
      portfolios.push({ id: personalPortfolio, name: 'Personal', ownerId: person.id, teamId: null });
    }
    const picks = person.index % 2 === 0 ? [0, 1 + ((person.index / 2) % 4)] : [0];
    for (const pick of picks) {
      const template = PERSONAL_PROJECTS[pick]!;
      const project: ProjectRecord = {
        id: `prj_${person.id.slice(2)}_${slug(template.name)}`,
        name: template.name,
        description: template.description,
        color: nextColor(),
        teamId: null,
        portfolioId: personalPortfolio,
        private: template.name === 'Side project',
        createdBy: person.id,
        createdAt: createdAt(30 + (person.index % 20)),
      };
      projects.push(project);
      personal.push({ id: project.id, name: project.name, weight: 1, until: null });
    }

    const homeTeam = homeTeamOf.get(person.id);
    const teamProjects = homeTeam
      ? (teamProjectsOf.get(homeTeam) ?? []).filter((wp) => {
          const record = projects.find((p) => p.id === wp.id)!;
          return record.contributorIds == null || record.contributorIds.includes(person.id);
        })
      : [];
    const colleagues = people
      .filter((p) => p.id !== person.id && homeTeamOf.get(p.id) === homeTeam)
      .map((p) => p.first)
      .slice(0, 4);
    demoPeople.push({
      index: person.index,
      id: person.id,
      firstName: person.first,
      timezone: person.timezone,
      firstDay: person.firstDay,
      lastDay: person.lastDay,
      dailyTargetMinutes: user.dailyTargetMinutes ?? 480,
      startMinute: 7 * 60 + 30 + random.int(0, 8) * 15,
      workProjects: [...teamProjects, ...personal],
      personalProjects: personal,
      teamProjects,
      colleagues: colleagues.length > 0 ? colleagues : ['Sam'],
    });

    const userName = user.name ?? user.displayName ?? person.id;
    const addKey = (purpose: string, name: string, scopes: string[], revoked = false) => {
      const key = demoKey(options, person.id, purpose);
      apiKeys.push({ id: `key_${person.id.slice(2)}_${purpose}`, userId: person.id, name, key, scopes, revoked });
      keys.push({ userId: person.id, userName, name, key, scopes, revoked });
    };
    addKey('all', 'Demo key (all scopes)', [...SCOPES]);
    if (person.index === 0) {
      addKey('reports', 'Reporting script', ['reports:read', 'summaries:read']);
      addKey('old-laptop', 'Old laptop', [...SCOPES], true);
    }
  }

  return { users, teams, portfolios, categories, projects, apiKeys, people: demoPeople, keys };
}
