/**
 * The environment agent commands run with (SPEC 4.4): the host's, minus every variable that
 * holds or reaches a secret — provider keys, tokens, passwords, cloud credentials, agent
 * sockets — unless the user's policy passes it by name (`commands.pass_env`). `printenv` must
 * never hand the model a key.
 */

/** Names that say a variable holds a secret, or a way to one. */
const SECRET_NAME =
  /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|PRIVATE|AUTH|COOKIE|SESSION|SIGNATURE|DSN)/i;
/** Whole families: providers, clouds, registries, agent sockets. */
const SECRET_FAMILY =
  /^(ANTHROPIC_|OPENAI_|AZURE_|AWS_|GOOGLE_|GCLOUD_|GCP_|CLOUDSDK_|GEMINI_|MISTRAL_|GROQ_|COHERE_|DEEPSEEK_|OPENROUTER_|TOGETHER_|HF_|HUGGING|OPENAGENT_|GITHUB_|GH_|GITLAB_|NPM_|NODE_AUTH|PYPI_|TWINE_|DOCKER_|KUBE|VAULT_|DATABASE_URL$|PG(PASSWORD|PASSFILE|SERVICEFILE)$|MYSQL_PWD$|REDIS_URL$|SENTRY_|STRIPE_|SLACK_|SSH_AUTH_SOCK$|SSH_AGENT|GPG_AGENT|DBUS_SESSION_BUS_ADDRESS$)/i;

export function isSecretVariable(name: string): boolean {
  return SECRET_NAME.test(name) || SECRET_FAMILY.test(name);
}

/** A copy of `env` without secret variables; `pass` names the ones kept anyway. */
export function scrubEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  pass: readonly string[] = [],
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isSecretVariable(name) && !pass.includes(name)) continue;
    kept[name] = value;
  }
  return kept;
}
