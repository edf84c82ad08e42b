#pragma once
/* libmicrohttpd helpers Swift cannot express: MHD_start_daemon and MHD_get_daemon_info are variadic. */
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* Why broker_mhd_start returned NULL. */
enum broker_mhd_start_error {
    BROKER_MHD_START_OK = 0,
    /* `host` is neither a numeric IPv4 nor a numeric IPv6 address. */
    BROKER_MHD_START_BAD_HOST = 1,
    /* MHD_start_daemon failed (out of resources); `errno` may say more. */
    BROKER_MHD_START_FAILED = 2,
};

/* A listening TCP socket on the numeric address `host` (IPv4 or IPv6; "::" is dual-stack, another IPv6 address
   IPv6 only) and `port` (0 = ephemeral), close-on-exec and non-blocking, with SO_REUSEADDR, as
   libmicrohttpd would make it. Returns the socket and stores the bound port in `*bound_port`; returns -1 with
   `*error` set to BROKER_MHD_START_BAD_HOST, or -2 with `*error` set to the failing call's errno (EADDRINUSE
   when another socket holds the address, EACCES for a privileged port). */
int broker_listen_socket(const char *host, uint16_t port, uint16_t *bound_port, int *error);

/* MHD_start_daemon on `listen_socket` (from broker_listen_socket, for the numeric address `host`: MHD_USE_IPv6
   is added for IPv6, MHD_USE_DUAL_STACK for "::"; libmicrohttpd owns the socket once this succeeds), with the given flags, an idle-connection timeout in seconds, a connection limit
   (0 = libmicrohttpd's default), an accept policy (may be NULL) and three callbacks: the access handler,
   MHD_OPTION_NOTIFY_COMPLETED and MHD_OPTION_NOTIFY_CONNECTION (either notifier may be NULL). `strict` is
   MHD_OPTION_STRICT_FOR_CLIENT's level. Returns NULL and sets `*error` on failure. */
struct MHD_Daemon *broker_mhd_start(
    const char *host, int listen_socket, unsigned int flags, unsigned int connection_timeout,
    unsigned int connection_limit, int strict,
    MHD_AcceptPolicyCallback accept_policy, void *accept_policy_context,
    MHD_AccessHandlerCallback access_handler, void *access_handler_context,
    MHD_RequestCompletedCallback request_completed, void *request_completed_context,
    MHD_NotifyConnectionCallback notify_connection, void *notify_connection_context,
    int *error);

/* Writes the numeric text of `address` (AF_INET or AF_INET6; an IPv4-mapped IPv6 address as its IPv4
   address) into `out` (at least 64 bytes). Returns 0, or -1 for another family or a NULL address. */
int broker_format_address(const struct sockaddr *address, char *out, size_t out_size);

/* The connection's peer address (MHD_CONNECTION_INFO_CLIENT_ADDRESS) as text, like broker_format_address. */
int broker_mhd_client_address(struct MHD_Connection *connection, char *out, size_t out_size);

/* The connection's socket (MHD_CONNECTION_INFO_CONNECTION_FD), or -1. */
int broker_mhd_connection_fd(struct MHD_Connection *connection);

/* The connection's socket context (MHD_CONNECTION_INFO_SOCKET_CONTEXT): what the connection notifier
   stored, or NULL. */
void *broker_mhd_socket_context(struct MHD_Connection *connection);

/* The port the daemon is bound to (MHD_DAEMON_INFO_BIND_PORT), or 0 when libmicrohttpd cannot tell. */
uint16_t broker_mhd_bound_port(struct MHD_Daemon *daemon);
