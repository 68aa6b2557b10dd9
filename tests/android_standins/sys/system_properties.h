/* STAND-IN for bionic's <sys/system_properties.h>: declarations only, for compile checks on a
 * machine without the NDK (see ../README.md). Not the real header. */
#pragma once

#define PROP_VALUE_MAX 92

#ifdef __cplusplus
extern "C" {
#endif
int __system_property_get(const char* name, char* value);
#ifdef __cplusplus
}
#endif
