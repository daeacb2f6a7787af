/** Records of the dataset format, as the JSON Schema defines them. */
export interface UserRecord {
  id: string;
  email: string;
  name?: string | null;
  displayName?: string | null;
  handle?: string;
  timezone?: string;
  plan?: 'free' | 'core' | 'pro';
  dailyTargetMinutes?: number;
  weekStart?: 'monday' | 'sunday';
  createdAt?: string;
}

export interface TeamRecord {
  id: string;
  name: string;
  members?: { userId: string; status?: 'active' | 'inactive'; role?: 'member' | 'admin' }[];
}

export interface PortfolioRecord {
  id: string;
  name: string;
  ownerId: string;
  teamId?: string | null;
}

export interface CategoryRecord {
  id: string;
  name: string;
  emoji?: string | null;
}

export interface ProjectRecord {
  id: string;
  name: string;
  description?: string | null;
  color?: string | null;
  teamId?: string | null;
  portfolioId?: string | null;
  private?: boolean;
  confidential?: boolean;
  contributorIds?: string[] | null;
  archived?: boolean;
  createdBy: string;
  createdAt?: string;
  updatedAt?: string;
}

export interface TaskRecord {
  id: string;
  userId: string;
  date: string;
  title: string;
  description?: string | null;
  projectId?: string | null;
  visible?: boolean;
  createdAt?: string;
}

export interface ActivityRecord {
  id: string;
  userId: string;
  start: string;
  durationMinutes?: number;
  headline: string;
  description?: string | null;
  taskId?: string | null;
  projectId?: string | null;
  categoryId?: string | null;
}

export interface DayCommentRecord {
  userId: string;
  date: string;
  comment: string;
}

export interface ApiKeyRecord {
  id?: string;
  userId: string;
  name: string;
  key?: string;
  keyHash?: string;
  scopes: string[];
  revoked?: boolean;
}
