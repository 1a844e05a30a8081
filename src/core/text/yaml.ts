/**
 * The YAML parser (for agent.yaml and SKILL.md frontmatter), loaded the first time a file is
 * parsed, not when the editor starts (issue 23): see lazy-module.ts.
 */
import { lazyModule } from '../lazy-module';
import type * as Yaml from 'yaml';

export const yaml = lazyModule(() => require('yaml') as typeof Yaml);
