/* Running a piece of code in the C locale, for the calling thread only:
 * reading and printing numbers ("1.5", never "1,5") must not depend on
 * the locale an application chose.  uselocale is per thread, so this is
 * safe while other threads read or print too. */
#ifndef STIR_LANG_C_LOCALE_H
#define STIR_LANG_C_LOCALE_H

#include <locale.h>

typedef struct lang_c_locale {
	locale_t c;            /* owned, or (locale_t)0 when unavailable */
	locale_t saved;        /* the thread's locale before */
} lang_c_locale;

/* l: switch the calling thread to the C locale.  When no locale object can
 * be had (memory ran out), the thread keeps its locale. */
static inline void lang_c_locale_enter(lang_c_locale *l)
{
	l->c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	l->saved = l->c ? uselocale(l->c) : (locale_t)0;
}

/* l: switch back to the locale before lang_c_locale_enter. */
static inline void lang_c_locale_leave(lang_c_locale *l)
{
	if (!l->c)
		return;
	uselocale(l->saved);
	freelocale(l->c);
}

#endif
