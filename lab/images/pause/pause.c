/* The lab's pod sandbox process: holds the pod's namespaces, reaps zombies, exits on TERM/INT. */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void stop(int sig) { (void)sig; _exit(0); }

static void reap(int sig) {
    (void)sig;
    while (waitpid(-1, NULL, WNOHANG) > 0) {
    }
}

int main(void) {
    struct sigaction term = {.sa_handler = stop};
    struct sigaction child = {.sa_handler = reap, .sa_flags = SA_NOCLDSTOP};
    sigaction(SIGTERM, &term, NULL);
    sigaction(SIGINT, &term, NULL);
    sigaction(SIGCHLD, &child, NULL);
    for (;;)
        pause();
}
