/**
 * The environment agent commands run with (SPEC 4.4): the host's, minus every variable that
 * holds or reaches a secret — by its name (provider keys, tokens, passwords, cloud credentials,
 * agent sockets, git configuration passed in the environment, header lists) or by its value
 * (secret-values.ts: a URL with a user part, an auth scheme, an auth-ish item in a list, a token
 * shape or a token-looking string) — unless the user's policy passes it by name (`commands.pass_env`).
 * `printenv` must never hand the model a key.
 */
import { isSecretValue } from './secret-values';

/** Words in a name that say the variable holds a secret, or a way to one. */
const SECRET_NAME =
  /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|CREDS|PRIVATE|AUTH|COOKIE|SESSION|SIGNATURE|DSN|JWT|WEBHOOK|BEARER|LOGIN|TOTP|OTP_SEED|(^|_)PASS($|_)|_PWD$|_PW$|(^|_)PAT$|^PWD_|CONNECTION|SASL|JAAS|HEADERS?$|NETRC)/i;
/** Whole families: providers, clouds, registries, agent sockets, credentials in git or bundler settings. */
const SECRET_FAMILY =
  /^(ANTHROPIC_|OPENAI_|AZURE_|AWS_|GOOGLE_|GCLOUD_|GCP_|CLOUDSDK_|GEMINI_|MISTRAL_|GROQ_|COHERE_|DEEPSEEK_|OPENROUTER_|TOGETHER_|XAI_|HF_|HUGGING|OPENAGENT_|GITHUB_|GH_|GITLAB_|NPM_|NODE_AUTH|PYPI_|TWINE_|DOCKER_|KUBE|VAULT_|SENTRY_|STRIPE_|SLACK_|BUNDLE_|GIT_CONFIG_|GIT_ASKPASS$|SSH_ASKPASS$|KRB5CCNAME$|DATABASE_URL$|PG(PASSWORD|PASSFILE|SERVICEFILE)$|MYSQL_PWD$|REDIS_URL$|SSH_AUTH_SOCK$|SSH_AGENT|GPG_AGENT|DBUS_SESSION_BUS_ADDRESS$)/i;
/** Kept even though the name looks secret: the shell's own working folder. */
const NOT_SECRET = new Set(['PWD', 'OLDPWD']);

export function isSecretVariable(name: string, value = ''): boolean {
  if (NOT_SECRET.has(name)) return false;
  return SECRET_NAME.test(name) || SECRET_FAMILY.test(name) || isSecretValue(value);
}

/** A copy of `env` without secret variables; `pass` names the ones kept anyway. */
export function scrubEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  pass: readonly string[] = [],
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isSecretVariable(name, value) && !pass.includes(name)) continue;
    kept[name] = value;
  }
  return kept;
}
