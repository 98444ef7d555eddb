package embed

import "strings"

// stopwords are English function words (apostrophes removed, as words are
// read): they stay in the vector at a small weight.
func stopwords() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if of at by for with about against between into through
during before after above below to from up down in out on off over under again further then once here there when
where why how all any both each few more most other some such no nor not only own same so than too very s t can will
just don should now i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her
hers herself it its itself they them their theirs themselves what which who whom this that these those am is are was
were be been being have has had having do does did doing would could ought im youre hes shes were theyre ive youve
weve theyve id youd hed shed wed theyd ill youll hell shell theyll isnt arent wasnt werent hasnt havent hadnt
doesnt dont didnt wont wouldnt shant shouldnt cant cannot couldnt mustnt lets thats whos whats heres theres whens
wheres whys hows as until while also yeah yes oh wow really um uh hey hi ok okay
lol haha well yep sure thanks thank`) {
		m[w] = true
	}
	return m
}

// cjkStop are Chinese function characters: kept, at a small weight.
func cjkStop(r rune) bool {
	switch r {
	case '的', '了', '是', '在', '我', '你', '他', '她', '它', '们', '这', '那', '和', '与', '及', '吗', '呢', '吧',
		'啊', '就', '也', '都', '很', '有', '个', '着', '过', '被', '把', '给', '让', '对', '说', '要', '会', '还',
		'又', '而', '之', '其', '或', '但', '呀', '哦', '嗯', '啦', '么', '什', '怎', '哪', '谁', '得', '地':
		return true
	}
	return false
}

// irregularForms maps irregular English forms to their base, so "went"
// meets "go" and "bought" meets "buy". Common verbs of casual talk.
func irregularForms() map[string]string {
	pairs := `went go gone go goes go did do done do does do saw see seen see made make took take taken take
got get gotten get gave give given give came come bought buy brought bring thought think told tell said say
met meet ran run felt feel found find kept keep left leave lost lose knew know known know heard hear held hold
began begin begun begin wrote write written write ate eat eaten eat drove drive driven drive flew fly flown fly
swam swim swum swim sang sing sung sing taught teach caught catch sold sell sent send spent spend built build
won win became become fell fall fallen fall grew grow grown grow drew draw drawn draw chose choose chosen choose
spoke speak spoken speak slept sleep stood stand understood understand wore wear worn wear broke break broken break
rode ride ridden ride paid pay read read led lead fed feed shot shoot hid hide hidden hide forgot forget
forgotten forget struck strike threw throw thrown throw woke wake woken wake bit bite bitten bite sat sit
children child men man women woman mice mouse feet foot teeth tooth geese goose wives wife knives knife`
	f := strings.Fields(pairs)
	m := make(map[string]string, len(f)/2)
	for i := 0; i+1 < len(f); i += 2 {
		m[f[i]] = f[i+1]
	}
	return m
}
