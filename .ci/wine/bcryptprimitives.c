/* Why this file: Debian 12's Wine 8.0 has no bcryptprimitives.dll, and the std of
   Rust >= 1.78 imports ProcessPrng from it, so every Rust .exe exits 53 under that Wine
   with no output. .ci/wine.sh builds this stand-in with MinGW into the throwaway prefix's
   system32; it fills the buffer from RtlGenRandom (advapi32). Test use only: it is never
   part of mcpctl, and real Windows (8 and later) has the DLL. */
#include <windows.h>
#include <ntsecapi.h>
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!RtlGenRandom(data, chunk)) return FALSE;
        data += chunk; len -= chunk;
    }
    return TRUE;
}
