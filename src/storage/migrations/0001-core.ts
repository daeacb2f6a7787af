import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema of their day
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text')
    .addColumn('display_name', 'text')
    .addColumn('handle', 'text', (c) => c.unique())
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .addColumn('plan', 'text', (c) => c.notNull().defaultTo('core'))
    .addColumn('daily_target_minutes', 'integer', (c) => c.notNull().defaultTo(480))
    .addColumn('week_start', 'text', (c) => c.notNull().defaultTo('monday'))
    .addColumn('created_at', 'bigint')
    .execute();

  await db.schema
    .createTable('teams')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('team_members')
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('role', 'text', (c) => c.notNull().defaultTo('member'))
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('team_members_pk', ['team_id', 'user_id'])
    .execute();
  await db.schema.createIndex('team_members_user').on('team_members').columns(['user_id', 'status']).execute();

  await db.schema
    .createTable('portfolios')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('team_id', 'text', (c) => c.references('teams.id'))
    .execute();

  await db.schema
    .createTable('categories')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('emoji', 'text')
    .execute();

  await db.schema
    .createTable('projects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('color', 'text')
    .addColumn('team_id', 'text', (c) => c.references('teams.id'))
    .addColumn('portfolio_id', 'text', (c) => c.references('portfolios.id'))
    .addColumn('private', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('confidential', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('contributor_ids', 'text')
    .addColumn('archived', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_by', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('updated_by', 'text')
    .addColumn('created_at', 'bigint')
    .addColumn('updated_at', 'bigint')
    .execute();
  await db.schema.createIndex('projects_team').on('projects').column('team_id').execute();
  await db.schema.createIndex('projects_created_by').on('projects').column('created_by').execute();

  await db.schema
    .createTable('tasks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('project_id', 'text', (c) => c.references('projects.id'))
    .addColumn('visible', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at_auto', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('tasks_user_date').on('tasks').columns(['user_id', 'date']).execute();
  await db.schema.createIndex('tasks_user_created').on('tasks').columns(['user_id', 'created_at']).execute();

  await db.schema
    .createTable('activities')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('start', 'bigint', (c) => c.notNull())
    .addColumn('duration_minutes', 'double precision', (c) => c.notNull())
    .addColumn('headline', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('task_id', 'text', (c) => c.references('tasks.id'))
    .addColumn('project_id', 'text', (c) => c.references('projects.id'))
    .addColumn('effective_project_id', 'text')
    .addColumn('category_id', 'text', (c) => c.references('categories.id'))
    .addColumn('local_date', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('activities_user_start').on('activities').columns(['user_id', 'start']).execute();
  await db.schema.createIndex('activities_user_day').on('activities').columns(['user_id', 'local_date']).execute();
  await db.schema.createIndex('activities_task').on('activities').column('task_id').execute();
  await db.schema
    .createIndex('activities_project_start')
    .on('activities')
    .columns(['effective_project_id', 'start'])
    .execute();

  await db.schema
    .createTable('day_comments')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('comment', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('day_comments_pk', ['user_id', 'date'])
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('revoked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_user').on('api_keys').column('user_id').execute();

  await db.schema
    .createTable('summaries')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('period_start', 'text', (c) => c.notNull())
    .addColumn('period_end', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('built_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('summaries_pk', ['user_id', 'level', 'period_start'])
    .execute();

  await db.schema
    .createTable('changed_days')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('local_date', 'text', (c) => c.notNull())
    .addColumn('changed_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('changed_days_pk', ['user_id', 'local_date'])
    .execute();

  await db.schema
    .createTable('daybook_meta')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'daybook_meta',
    'changed_days',
    'summaries',
    'api_keys',
    'day_comments',
    'activities',
    'tasks',
    'projects',
    'categories',
    'portfolios',
    'team_members',
    'teams',
    'users',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
