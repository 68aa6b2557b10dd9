/* STAND-IN for bionic's <android/api-level.h>: declarations only, for compile checks on a
 * machine without the NDK (see ../README.md). Not the real header. */
#pragma once

#define __ANDROID_API_FUTURE__ 10000
#ifndef __ANDROID_API__
#define __ANDROID_API__ __ANDROID_API_FUTURE__
#endif

#ifdef __cplusplus
extern "C" {
#endif
int android_get_application_target_sdk_version(void);
int android_get_device_api_level(void);
#ifdef __cplusplus
}
#endif
