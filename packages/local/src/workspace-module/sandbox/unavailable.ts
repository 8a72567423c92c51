/** The sandbox cannot run on this machine; the module starts nothing without it. */
export class SandboxUnavailable extends Error {}

const NOTHING_UNCONFINED = "The workspace module runs commands and file operations only inside a bubblewrap sandbox, so it does not start.";

export const bwrapMissing = () =>
  new SandboxUnavailable(
    `bubblewrap (bwrap) is not installed. ${NOTHING_UNCONFINED} Install it: apt-get install bubblewrap (Debian, Ubuntu), dnf install bubblewrap (Fedora).`,
  );

export const bwrapFailed = (said: string) =>
  new SandboxUnavailable(
    `bubblewrap could not start a sandbox here (bwrap said: ${said.trim().slice(-600) || "nothing"}). ${NOTHING_UNCONFINED} ` +
      "bwrap needs unprivileged user namespaces. On Ubuntu 24.04 and later AppArmor restricts them: give bwrap a profile that allows them " +
      "(/etc/apparmor.d/bwrap, in the workspace module's README) or run sysctl -w kernel.apparmor_restrict_unprivileged_userns=0. " +
      "Elsewhere: sysctl -w kernel.unprivileged_userns_clone=1 and user.max_user_namespaces above 0; in a container, allow unshare (e.g. Docker's --security-opt seccomp=unconfined).",
  );
