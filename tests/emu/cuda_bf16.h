/* Empty: the emulation (cuda_emu.h) is force-included and provides the
 * 16-bit float types. */
