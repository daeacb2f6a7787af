/**
 * Where a project may live, as functions without a database (docs/api.md, projects: `team` and
 * `portfolio`): how a team or portfolio is named, and which projects a portfolio holds.
 * test/projects/endpoints.test.ts checks the same rules through HTTP.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  checkPortfolioFits,
  isClearing,
  resolvePortfolio,
  resolveTeam,
} from '../../src/services/projects/placement.ts';
import type { PortfolioRef } from '../../src/storage/projects.ts';

const refused = (message: string) => ({ status: 400, message });

describe('a portfolio holds only projects of its own scope', () => {
  const teamPortfolio: PortfolioRef = { id: 'pf_team', name: 'Roadmap', ownerId: 'u_ann', teamId: 't_core' };
  const personalPortfolio: PortfolioRef = { id: 'pf_mine', name: 'Mine', ownerId: 'u_ann', teamId: null };

  test('a team portfolio takes a project of its team, whoever owns it', () => {
    assert.doesNotThrow(() => checkPortfolioFits(teamPortfolio, { teamId: 't_core', ownerId: 'u_ben' }, 'Roadmap'));
  });

  test('a team portfolio refuses a project of another team and a personal project', () => {
    for (const project of [
      { teamId: 't_other', ownerId: 'u_ann' },
      { teamId: null, ownerId: 'u_ann' },
    ]) {
      assert.throws(
        () => checkPortfolioFits(teamPortfolio, project, 'Roadmap'),
        refused('Portfolio "Roadmap" holds only projects of its team'),
      );
    }
  });

  test("a personal portfolio takes its owner's personal projects", () => {
    assert.doesNotThrow(() => checkPortfolioFits(personalPortfolio, { teamId: null, ownerId: 'u_ann' }, 'Mine'));
  });

  test('a personal portfolio refuses a team project, even of its owner', () => {
    assert.throws(
      () => checkPortfolioFits(personalPortfolio, { teamId: 't_core', ownerId: 'u_ann' }, 'Mine'),
      refused('Portfolio "Mine" holds only personal projects'),
    );
  });

  test("a personal portfolio refuses someone else's personal project", () => {
    assert.throws(
      () => checkPortfolioFits(personalPortfolio, { teamId: null, ownerId: 'u_ben' }, 'pf_mine'),
      refused('Portfolio "pf_mine" holds only its owner\'s projects'),
    );
  });

  test('the message names the portfolio as the caller did, cut to 100 characters', () => {
    const long = 'x'.repeat(150);
    assert.throws(
      () => checkPortfolioFits(teamPortfolio, { teamId: null, ownerId: 'u_ann' }, long),
      refused(`Portfolio "${'x'.repeat(100)}…" holds only projects of its team`),
    );
  });
});

describe('a team or portfolio is named by id or by its exact name', () => {
  const teams = [
    { id: 't_core', name: 'Core' },
    { id: 'Core', name: 'Platform' },
    { id: 't_web', name: ' Web ' },
  ];

  test('an id matches first, before a name', () => {
    assert.equal(resolveTeam('Core', teams).id, 'Core');
    assert.equal(resolveTeam('t_core', teams).id, 't_core');
  });

  test('a name matches exactly after trimming both sides, and case counts', () => {
    assert.equal(resolveTeam('Platform', teams).id, 'Core');
    assert.equal(resolveTeam('  Web\t', teams).id, 't_web');
    assert.throws(() => resolveTeam('platform', teams), refused('Team not found: "platform"'));
    assert.throws(() => resolveTeam('Plat', teams), refused('Team not found: "Plat"'));
  });

  test('a portfolio the caller cannot use is not found', () => {
    const usable: PortfolioRef[] = [{ id: 'pf_1', name: 'Roadmap', ownerId: 'u_ann', teamId: null }];
    assert.equal(resolvePortfolio('Roadmap', usable).id, 'pf_1');
    assert.throws(() => resolvePortfolio('pf_2', usable), refused('Portfolio not found: "pf_2"'));
  });

  test('null, "" and whitespace clear a team or portfolio; a name does not', () => {
    assert.deepEqual(
      [null, '', '  ', '\t\n', 'Core'].map((v) => isClearing(v)),
      [true, true, true, true, false],
    );
  });
});
