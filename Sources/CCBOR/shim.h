/* libcbor, the CBOR (RFC 8949) decoder and encoder passkeys use (Debian: libcbor-dev). Only its streaming decoder
   (cbor/streaming.h) and its head encoders (cbor/encoding.h) are called, from BrokerCBOR. */
#include <cbor.h>
